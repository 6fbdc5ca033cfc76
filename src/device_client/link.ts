/**
 * Parsing of enrollment links (docs/contract.md sections 7 and 10):
 * `paddock://enroll?server=…&pin=…[&pin=…]&token=…[&control=…][&max_privacy=…]`.
 */
import { MAX_PINS, PIN } from '../domain/pins.ts';
import { isPrivacyLevel, type PrivacyLevel, PRIVACY_LEVELS_TEXT } from '../domain/privacy.ts';

export interface EnrollmentLink {
  /** Public host[:port] of the server. */
  server: string;
  /**
   * `sha256/<base64>` of the control key's SubjectPublicKeyInfo: the current key's, then the next
   * one's (docs/contract.md section 16); links made before the next key have one.
   */
  pins: string[];
  token: string;
  /** When present, the device connects here and skips discovery. */
  control?: string;
  /** The token's privacy ceiling (docs/contract.md section 10); absent means `full`. */
  maxPrivacy?: PrivacyLevel;
}

export class LinkError extends Error {
  constructor(message: string) {
    super(`enrollment link: ${message}`);
    this.name = 'LinkError';
  }
}

const SERVER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:[0-9]{1,5})?$/;

export function parseEnrollmentLink(text: string): EnrollmentLink {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new LinkError('not a URL');
  }
  if (url.protocol !== 'paddock:' || url.hostname !== 'enroll')
    throw new LinkError('must start with paddock://enroll?');
  const one = (name: string) => {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) throw new LinkError(`${name} appears more than once`);
    return values[0];
  };
  const server = one('server');
  const pins = url.searchParams.getAll('pin');
  const token = one('token');
  const control = one('control');
  const maxPrivacy = one('max_privacy');
  if (!server || !SERVER.test(server)) throw new LinkError('server must be a host name with an optional port');
  if (pins.length === 0 || !pins.every((pin) => PIN.test(pin)))
    throw new LinkError('pin must be sha256/ followed by a base64 SHA-256');
  if (pins.length > MAX_PINS) throw new LinkError(`pin appears more than ${MAX_PINS} times`);
  if (!token || !/^[A-Za-z0-9_-]{1,512}$/.test(token)) throw new LinkError('token is missing or malformed');
  if (control !== undefined && !/^https:\/\/[^/?#]+\/?$/.test(control))
    throw new LinkError('control must be an https URL');
  if (maxPrivacy !== undefined && !isPrivacyLevel(maxPrivacy))
    throw new LinkError(`max_privacy must be ${PRIVACY_LEVELS_TEXT}`);
  return {
    server,
    pins,
    token,
    ...(control === undefined ? {} : { control: control.replace(/\/$/, '') }),
    ...(maxPrivacy === undefined ? {} : { maxPrivacy }),
  };
}
