/** POST /devices/{id}/revoke: admin only; the device's credential stops working at once. Logged. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { clientAddress } from '../http/client_address.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { setNotice } from './notice.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { viewer } from './page_helpers.ts';

export function deviceRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    const v = viewer(c);
    if (!DEVICE_ID.test(id) || !(await ctx.store.deviceVisibleTo(v, id))) return fail(c, 'deviceNotFound');
    // Revoking an already revoked device changes nothing and is not an error: the outcome is the same.
    if (await ctx.store.revokeDevice(v, id, ctx.clock.now())) {
      ctx.logger.log('info', 'device.revoked', { account: v.subject, client: clientAddress(c), device: id });
    }
    setNotice(ctx, c, { kind: 'revoked', device: id });
    return seeOther(c, '/devices');
  };
}
