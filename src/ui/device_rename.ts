/** POST /devices/{id}/rename: the device's owner or an admin; form `name`; 303 to the device. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { DEVICE_ID } from '../domain/ids.ts';
import { DEVICE_NAME } from '../domain/names.ts';
import { clientAddress } from '../http/client_address.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { setNotice } from './notice.ts';
import { viewer } from './page_helpers.ts';

export function deviceRename(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRenameHandler(c) {
    const id = c.req.param('id') ?? '';
    const v = viewer(c);
    // Scope first: a device the account cannot see is 404 whatever the form holds.
    if (!DEVICE_ID.test(id) || !(await ctx.store.deviceVisibleTo(v, id))) return fail(c, 'deviceNotFound');
    const name = (c.get('form').get('name') ?? '').trim();
    if (!DEVICE_NAME.test(name)) return fail(c, 'badDeviceName');
    if (!(await ctx.store.renameDevice(v, id, name))) return fail(c, 'deviceNotFound');
    ctx.logger.log('info', 'device.renamed', { account: v.subject, client: clientAddress(c), device: id, name });
    setNotice(ctx, c, { kind: 'renamed', device: id });
    return seeOther(c, `/devices/${encodeURIComponent(id)}`);
  };
}
