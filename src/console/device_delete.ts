/**
 * POST /devices/{id}/delete: admin only; deletes a revoked device and its runs (409 while not revoked).
 * 303 to the device list, or to the list's `return` (docs/contract.md section 22). Its confirmation
 * page is GET /devices/{id}/delete (device_delete_confirm.ts).
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deleteDevice } from '../actions/devices.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function deviceDelete(ctx: Ctx): Handler<UiEnv> {
  return async function deviceDeleteHandler(c) {
    const id = c.req.param('id') ?? '';
    const outcome = await deleteDevice(ctx, actor(c), id);
    if (outcome === 'unknown') return fail(c, 'deviceNotFound');
    if (outcome === 'not-revoked') return fail(c, 'deviceNotRevoked');
    setNotice(ctx, c, { kind: 'device-deleted', device: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/devices'));
  };
}
