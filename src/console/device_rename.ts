/** POST /devices/{id}/rename: the device's owner or an admin; form `name`; 303 to the device. */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { renameDevice } from '../actions/devices.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function deviceRename(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRenameHandler(c) {
    const id = c.req.param('id') ?? '';
    const name = (c.get('form').get('name') ?? '').trim();
    const renamed = await renameDevice(ctx, actor(c), { id, name });
    if (renamed === 'unknown') return fail(c, 'deviceNotFound');
    if (renamed === 'bad-name') return fail(c, 'badDeviceName');
    setNotice(ctx, c, { kind: 'renamed', device: id });
    return seeOther(c, `/devices/${encodeURIComponent(id)}`);
  };
}
