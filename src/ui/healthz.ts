/** GET /healthz: the process is up, and its version; nothing more (specification, Authentication 8). */
import type { Handler } from 'hono';
import type { Ctx } from './deps.ts';

export function healthz(ctx: Ctx): Handler {
  const body = `${JSON.stringify({ ok: true, version: ctx.config.version })}\n`;
  return function healthzHandler(c) {
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  };
}
