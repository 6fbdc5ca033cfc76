/**
 * GET /devices/{id}/reject (docs/contract.md sections 16 and 22): admin only, as the action. What
 * rejecting a pending device does, with the form that posts to POST /devices/{id}/reject; answers
 * as the action would for a device out of scope (404) or one that does not wait (409).
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

export function deviceRejectConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRejectConfirmHandler(c) {
    const id = c.req.param('id') ?? '';
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(viewer(c), id) : undefined;
    if (!device) return fail(c, 'deviceNotFound');
    if (device.pendingSince === null) return fail(c, 'deviceNotPending');
    const back = queryReturn(c.req.url, '/devices');
    const path = devicePath(id);
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: `Reject device ${device.name}?`,
        consequence: html`Rejecting ${namedDevice(device)} revokes it: its credential is refused at once, on every
          instance, and it must be enrolled again with a new link to reach Paddock.`,
        undo: true,
        action: `${path}/reject`,
        fields: returnField(back),
        button: 'Reject 1 device',
        cancel:
          back === undefined ? { href: path, text: 'Back to the device' } : { href: back, text: 'Back to the list' },
      }),
    );
  };
}
