/** GET /healthz: the process is up, and its version; nothing more (specification, Authentication 8). */
import type { Handler } from 'hono';
import type { Ctx } from '../context/deps.ts';

export const HEALTHZ_CONTENT_TYPE = 'application/json';

/** The health document, shared with the server's fast path (src/server/health_fast_path.ts). */
export function healthDocument(version: string): string {
  return `${JSON.stringify({ ok: true, version })}\n`;
}

export function healthz(ctx: Ctx): Handler {
  const body = healthDocument(ctx.config.version);
  return function healthzHandler(c) {
    return c.body(body, 200, { 'Content-Type': HEALTHZ_CONTENT_TYPE });
  };
}
