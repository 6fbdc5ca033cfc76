/**
 * GET /devices/{id}/revoke (docs/contract.md section 22): admin only, as the action. What revoking
 * does, with the form that posts to POST /devices/{id}/revoke; a device out of scope answers the
 * action's own 404. `return` (a device list path) rides along to the action.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { queryReturn } from '../http/return_path.ts';
import { confirmPage, namedDevice, returnField } from '../views/confirm.ts';
import { devicePath } from '../views/devices.ts';
import { html } from '../views/html.ts';
import { chrome, viewer } from './page_helpers.ts';

export function deviceRevokeConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRevokeConfirmHandler(c) {
    const id = c.req.param('id') ?? '';
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(viewer(c), id) : undefined;
    if (!device) return fail(c, 'deviceNotFound');
    const back = queryReturn(c.req.url, '/devices');
    const path = devicePath(id);
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: `Revoke device ${device.name}?`,
        consequence:
          device.revokedAt === null
            ? html`Revoking ${namedDevice(device)} refuses its credential at once, on every instance: its uploads
                and calls are refused and its open requests are cancelled. Its runs stay.`
            : html`${namedDevice(device)} is already revoked: revoking it again changes nothing.`,
        undo: true,
        action: `${path}/revoke`,
        fields: returnField(back),
        button: 'Revoke 1 device',
        cancel:
          back === undefined ? { href: path, text: 'Back to the device' } : { href: back, text: 'Back to the list' },
      }),
    );
  };
}
