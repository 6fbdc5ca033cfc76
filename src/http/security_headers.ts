/** Headers on every response (CONTRACT section 5): a strict policy, no sniffing, no framing, no referrer. */
import type { MiddlewareHandler } from 'hono';

export const CONTENT_SECURITY_POLICY = "default-src 'none'";

/** Sets the security headers; Cache-Control only when the response has none of its own. */
export function applySecurityHeaders(h: Headers): void {
  h.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  h.set('X-Content-Type-Options', 'nosniff');
  h.set('X-Frame-Options', 'DENY');
  h.set('Referrer-Policy', 'no-referrer');
  // Pages show account data; nothing Paddock answers is worth caching in a shared cache.
  if (!h.has('Cache-Control')) h.set('Cache-Control', 'no-store');
}

export function securityHeaders(): MiddlewareHandler {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    applySecurityHeaders(c.res.headers);
  };
}
