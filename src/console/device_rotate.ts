/**
 * POST /devices/{id}/rotate: admin only; the device's next control answer carries
 * `Paddock-Rotate: credential` (docs/contract.md section 16). Audited; 303 to the device.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { askRotation } from '../actions/credentials.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function deviceRotate(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRotateHandler(c) {
    const id = c.req.param('id') ?? '';
    const outcome = await askRotation(ctx, actor(c), id);
    if (outcome === 'unknown') return fail(c, 'deviceNotFound');
    if (outcome === 'revoked') return fail(c, 'rotateRevoked');
    setNotice(ctx, c, { kind: 'rotation-asked', device: id });
    return seeOther(c, `/devices/${encodeURIComponent(id)}`);
  };
}
