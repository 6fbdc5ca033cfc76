/**
 * The two cookies of the specification, serialized here so their attributes are exactly those
 * written there: Path /, HttpOnly, SameSite=Lax, Secure per configuration, and Max-Age when given.
 */
import type { Context } from 'hono';

export const SESSION_COOKIE = 'service_admin';
export const OIDC_COOKIE = 'service_oidc';

/** `maxAge` -1 clears the cookie, as the specification words it (RFC 6265 section 5.2.2: expire now). */
export function setCookie(c: Context, name: string, value: string, opts: { secure: boolean; maxAge?: number }): void {
  let header = `${name}=${value}; Path=/`;
  if (opts.maxAge !== undefined) header += `; Max-Age=${opts.maxAge}`;
  header += '; HttpOnly';
  if (opts.secure) header += '; Secure';
  header += '; SameSite=Lax';
  c.header('Set-Cookie', header, { append: true });
}

export function clearCookie(c: Context, name: string, secure: boolean): void {
  setCookie(c, name, '', { secure, maxAge: -1 });
}

/** The first value of cookie `name` in the request (RFC 6265 section 5.4 orders the most specific first). */
export function readCookie(c: Context, name: string): string | undefined {
  const header = c.req.header('cookie');
  if (!header || header.length > 16_384) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
