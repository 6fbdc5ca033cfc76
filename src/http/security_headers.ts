/** Headers on every response (CONTRACT section 5): a strict policy, no sniffing, no framing, no referrer. */
import type { MiddlewareHandler } from 'hono';

export const CONTENT_SECURITY_POLICY = "default-src 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};

/** Pages show account data; nothing Paddock answers is worth caching in a shared cache. */
export const DEFAULT_CACHE_CONTROL = 'no-store';

/** Sets the security headers; Cache-Control only when the response has none of its own. */
export function applySecurityHeaders(h: Headers): void {
  for (const name in SECURITY_HEADERS) h.set(name, SECURITY_HEADERS[name] as string);
  if (!h.has('Cache-Control')) h.set('Cache-Control', DEFAULT_CACHE_CONTROL);
}

export function securityHeaders(): MiddlewareHandler {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    applySecurityHeaders(c.res.headers);
  };
}
