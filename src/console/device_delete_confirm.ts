/**
 * GET /devices/{id}/delete (docs/contract.md section 22): admin only, as the action. What deleting a
 * revoked device does, with the form that posts to POST /devices/{id}/delete; answers as the action
 * would for a device out of scope (404) or one not revoked (409).
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { queryReturn } from '../http/return_path.ts';
import { confirmPage, namedDevice, returnField } from '../views/confirm.ts';
import { devicePath } from '../views/devices.ts';
import { size } from '../views/format.ts';
import { html } from '../views/html.ts';
import { chrome, viewer } from './page_helpers.ts';

export function deviceDeleteConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function deviceDeleteConfirmHandler(c) {
    const id = c.req.param('id') ?? '';
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(viewer(c), id) : undefined;
    if (!device) return fail(c, 'deviceNotFound');
    if (device.revokedAt === null) return fail(c, 'deviceNotRevoked');
    const back = queryReturn(c.req.url, '/devices');
    const path = devicePath(id);
    const stored = await ctx.store.storedBytes(id);
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: `Delete device ${device.name}?`,
        consequence: html`Deleting ${namedDevice(device)} deletes the device and every one of its runs
          (${size(stored)} stored). Its entries in the audit trail stay.`,
        undo: true,
        action: `${path}/delete`,
        fields: returnField(back),
        button: 'Delete 1 device and its runs',
        cancel:
          back === undefined ? { href: path, text: 'Back to the device' } : { href: back, text: 'Back to the list' },
      }),
    );
  };
}
