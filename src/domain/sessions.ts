/**
 * Recorded console sessions (docs/contract.md section 14): each session is a row, named on the
 * pages by a public id that says nothing of the cookie, with where it came from and which browser.
 */
import { randomToken, sha256Hex } from '../crypto/random.ts';

/** How the sessions page names a session (`s_` + 96 random bits). */
export const SESSION_PUBLIC_ID = /^s_[A-Za-z0-9_-]{1,62}$/;

export function newSessionPublicId(): string {
  return `s_${randomToken(12)}`;
}

/**
 * What the store keys a session by: the SHA-256 of its cookie's id (128 random bits, so a fast
 * hash suffices). Reading the sessions table then gives nothing a cookie could carry.
 */
export function sessionKey(cookieId: string): string {
  return sha256Hex(cookieId);
}

/** Last seen is written at most this often per session, so a busy console costs few writes. */
export const SESSION_SEEN_EVERY_MS = 60_000;

/** What starting (or first seeing) a session records. */
export interface NewSessionRecord {
  /** The cookie's session id: the row's key is its hash (sessionKey), never shown. */
  id: string;
  subject: string;
  /** The admin flag the session started with: a cookie claiming another is refused. */
  admin: boolean;
  /** The identity provider's session id (`sid`) of the sign-in, for back-channel logout. */
  sid?: string | undefined;
  startedAt: number;
  expiresAt: number;
  client: string;
  browser: string;
}

/** A session as the sessions and account pages show it: never its cookie id. */
export interface SessionRecord {
  publicId: string;
  subject: string;
  startedAt: number;
  lastSeenAt: number;
  expiresAt: number;
  client: string;
  browser: string;
  endedAt: number | null;
}

const BROWSERS: ReadonlyArray<[string, RegExp]> = [
  ['Edge', /Edg(?:e|A|iOS)?\/(\d+)/],
  ['Opera', /OPR\/(\d+)/],
  ['Firefox', /(?:Firefox|FxiOS)\/(\d+)/],
  ['Chrome', /(?:Chrome|CriOS)\/(\d+)/],
  ['Safari', /Version\/(\d+)[^ ]* (?:Mobile\/\S+ )?Safari\//],
  ['curl', /^curl\/(\d+)/],
];
const SYSTEMS: ReadonlyArray<[string, RegExp]> = [
  ['Android', /Android/],
  ['iOS', /iPhone|iPad|iPod/],
  ['Windows', /Windows/],
  ['macOS', /Mac OS X|Macintosh/],
  ['ChromeOS', /CrOS/],
  ['Linux', /Linux|X11/],
];

/**
 * The browser, short, from a User-Agent header: "Firefox 128 on Linux", else the header's first 64
 * visible characters (the header is the client's word; the page escapes it like any text).
 */
export function shortBrowser(userAgent: string | undefined): string {
  const ua = (userAgent ?? '').slice(0, 512);
  if (ua.trim() === '') return 'unknown';
  const browser = BROWSERS.map(([name, re]) => {
    const m = re.exec(ua);
    return m ? `${name} ${m[1] ?? ''}`.trim() : undefined;
  }).find((b) => b !== undefined);
  const system = SYSTEMS.find(([, re]) => re.test(ua))?.[0];
  if (browser !== undefined) return system === undefined ? browser : `${browser} on ${system}`;
  return ua.replace(/[\u0000-\u001f\u007f]/g, '').slice(0, 64);
}
