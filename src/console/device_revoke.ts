/** POST /devices/{id}/revoke: admin only; the device's credential stops working at once. Logged. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { revokeDevice } from '../actions/devices.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function deviceRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    if ((await revokeDevice(ctx, actor(c), id)) === 'unknown') return fail(c, 'deviceNotFound');
    setNotice(ctx, c, { kind: 'revoked', device: id });
    return seeOther(c, '/devices');
  };
}
