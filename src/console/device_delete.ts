/** POST /devices/{id}/delete: admin only; deletes a revoked device and its runs (409 while not revoked). */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
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
    return seeOther(c, '/devices');
  };
}
