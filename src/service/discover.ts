/** GET /v1/discover: where devices connect, and the display name; never a pin (specification item 7). */
import type { Handler } from 'hono';
import type { Ctx } from '../context/deps.ts';

export function discover(ctx: Ctx): Handler {
  const body = JSON.stringify({ control_url: ctx.config.controlUrl, name: ctx.config.serverName });
  return function discoverHandler(c) {
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  };
}
