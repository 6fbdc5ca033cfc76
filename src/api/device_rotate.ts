/**
 * POST /api/v1/devices/{id}/rotate: admin tokens only; the device's next control answer carries
 * `Paddock-Rotate: credential` (docs/contract.md section 16), as the console's button does. 204;
 * 404 outside the scope; 409 for a revoked device.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { askRotation } from '../actions/credentials.ts';
import { apiOperation } from './auth.ts';
import { problem } from './problem.ts';

export function apiDeviceRotate(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'asking a device to rotate its credential' }, async (c, actor) => {
    const outcome = await askRotation(ctx, actor, c.req.param('id') ?? '');
    if (outcome === 'unknown') return problem(c, 404, 'not found', 'no such device in your scope');
    if (outcome === 'revoked')
      return problem(c, 409, 'conflict', 'the device is revoked: it has no credential to rotate');
    return c.body(null, 204);
  });
}
