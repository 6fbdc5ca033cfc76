/**
 * POST /devices/{id}/rename: the device's owner or an admin; form `name`; 303 to the device. A bad
 * name is answered 400 with the device page, the form as sent (docs/contract.md section 22).
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { renameDevice } from '../actions/devices.ts';
import { deviceAnswer } from './device_show.ts';
import { setNotice } from './notice.ts';
import { actor, refusedForm } from './page_helpers.ts';

export function deviceRename(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRenameHandler(c) {
    const id = c.req.param('id') ?? '';
    const name = (c.get('form').get('name') ?? '').trim();
    const renamed = await renameDevice(ctx, actor(c), { id, name });
    if (renamed === 'unknown') return fail(c, 'deviceNotFound');
    if (renamed === 'bad-name')
      return deviceAnswer(ctx, c, id, { refused: refusedForm(c, 'name', 'badDeviceName') }, 400);
    setNotice(ctx, c, { kind: 'renamed', device: id });
    return seeOther(c, `/devices/${encodeURIComponent(id)}`);
  };
}
