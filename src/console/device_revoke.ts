/**
 * POST /devices/{id}/revoke: admin only; the device's credential stops working at once. Logged. 303 to
 * the device list, or to the list's `return` (docs/contract.md section 22). Its confirmation page is
 * GET /devices/{id}/revoke (device_revoke_confirm.ts).
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { revokeDevice } from '../actions/devices.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function deviceRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    if ((await revokeDevice(ctx, actor(c), id)) === 'unknown') return fail(c, 'deviceNotFound');
    setNotice(ctx, c, { kind: 'revoked', device: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/devices'));
  };
}
