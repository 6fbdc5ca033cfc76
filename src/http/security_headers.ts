/** Headers on every response (docs/contract.md section 5): a strict policy, no sniffing, no framing, no referrer. */
import type { MiddlewareHandler } from 'hono';

export const CONTENT_SECURITY_POLICY = "default-src 'none'";

/**
 * The raw download's policy (docs/contract.md section 10): the same, and a sandbox, so that even a browser
 * that rendered the bytes would give them no origin. A response may tighten the policy to this,
 * never loosen it.
 */
export const SANDBOXED_POLICY = `${CONTENT_SECURITY_POLICY}; sandbox`;

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
  const sandboxed = h.get('Content-Security-Policy') === SANDBOXED_POLICY;
  for (const name in SECURITY_HEADERS) h.set(name, SECURITY_HEADERS[name] as string);
  if (sandboxed) h.set('Content-Security-Policy', SANDBOXED_POLICY);
  if (!h.has('Cache-Control')) h.set('Cache-Control', DEFAULT_CACHE_CONTROL);
}

export function securityHeaders(): MiddlewareHandler {
  return async function securityHeadersMiddleware(c, next) {
    await next();
    applySecurityHeaders(c.res.headers);
  };
}
