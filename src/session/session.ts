/**
 * The `service_admin` session cookie: integrity-protected with an HMAC under the first session
 * key, verified under any (rotation); CSRF tokens likewise. The value carries a random session id besides the fields
 * of the specification; CSRF tokens are derived from it (docs/contract.md section 5).
 */
import { createHmac, createSecretKey, type KeyObject, timingSafeEqual } from 'node:crypto';
import { randomToken } from '../crypto/random.ts';

export interface Session {
  id: string;
  subject: string;
  display: string;
  admin: boolean;
  /** Milliseconds since the epoch. */
  expires: number;
}

export interface SessionCodec {
  encode(session: Session): string;
  /** The session in a cookie value, or undefined when it fails parsing, its MAC, or has expired. */
  decode(value: string, now: number): Session | undefined;
  /** The CSRF token of a session: URL-safe base64 without padding. */
  csrfToken(session: Session): string;
  /** Constant-time check of a submitted CSRF token. */
  csrfValid(session: Session, submitted: string | undefined): boolean;
  newSession(fields: Omit<Session, 'id' | 'expires'>, now: number): Session;
}

// Distinct labels keep a cookie MAC from ever being accepted as a CSRF token or the reverse.
const COOKIE_LABEL = 'paddock session v1\0';
const CSRF_LABEL = 'paddock csrf v1\0';

const MAX_COOKIE_LENGTH = 4096;

export function sessionCodec(keys: readonly Buffer[], ttlSeconds: number): SessionCodec {
  if (keys.length === 0) throw new TypeError('sessionCodec: at least one key is required');
  const keyObjects: KeyObject[] = keys.map((k) => createSecretKey(k));
  const signing = keyObjects[0] as KeyObject;

  const mac = (key: KeyObject, label: string, data: string) =>
    createHmac('sha256', key).update(label).update(data).digest();

  const csrfData = (s: Session) => `${s.id}\0${s.subject}\0${s.expires}`;
  const csrfToken = (s: Session) => mac(signing, CSRF_LABEL, csrfData(s)).toString('base64url');

  /** Whether `given` is the MAC of `data` under any key; every key is tried, whatever matches. */
  const macUnderAnyKey = (label: string, data: string, given: Buffer) => {
    let matched = false;
    for (const key of keyObjects) matched = timingSafeEqual(mac(key, label, data), given) || matched;
    return matched;
  };

  return {
    newSession(fields, now) {
      return { ...fields, id: randomToken(16), expires: now + ttlSeconds * 1000 };
    },

    encode(s) {
      const payload = Buffer.from(JSON.stringify([1, s.id, s.subject, s.display, s.admin, s.expires])).toString(
        'base64url',
      );
      return `${payload}.${mac(signing, COOKIE_LABEL, payload).toString('base64url')}`;
    },

    decode(value, now) {
      if (value.length > MAX_COOKIE_LENGTH) return undefined;
      const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(value);
      if (!m) return undefined;
      const [, payload = '', tag = ''] = m;
      const given = Buffer.from(tag, 'base64url');
      // Only the canonical encoding: a last character differing in its unused bits is another cookie.
      if (given.toString('base64url') !== tag) return undefined;
      if (!macUnderAnyKey(COOKIE_LABEL, payload, given)) return undefined;
      let fields: unknown;
      try {
        fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      } catch {
        return undefined;
      }
      if (!Array.isArray(fields) || fields.length !== 6 || fields[0] !== 1) return undefined;
      const [, id, subject, display, admin, expires] = fields as unknown[];
      if (typeof id !== 'string' || typeof subject !== 'string' || typeof display !== 'string') return undefined;
      if (typeof admin !== 'boolean' || typeof expires !== 'number' || !(expires > now)) return undefined;
      return { id, subject, display, admin, expires };
    },

    csrfToken,

    // A form rendered before a key rotation (or by an instance still signing with the old key)
    // stays valid as long as its session does: the token is checked under every key, as the cookie.
    csrfValid(s, submitted) {
      if (submitted === undefined || !/^[A-Za-z0-9_-]{43}$/.test(submitted)) return false;
      const given = Buffer.from(submitted, 'base64url');
      if (given.toString('base64url') !== submitted) return false;
      return macUnderAnyKey(CSRF_LABEL, csrfData(s), given);
    },
  };
}
