/** POST /runs/{device}/{id}/delete: any signed-in account, within its scope; logged with who did it. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { clientAddress } from '../http/client_address.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { setNotice } from './notice.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { viewer } from './page_helpers.ts';

export function runDelete(ctx: Ctx): Handler<UiEnv> {
  return async function runDeleteHandler(c) {
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    const v = viewer(c);
    const deleted = DEVICE_ID.test(device) && RUN_ID.test(id) && (await ctx.store.deleteRun(v, device, id));
    if (!deleted) return fail(c, 'runNotFound');
    ctx.logger.log('info', 'run.deleted', { account: v.subject, client: clientAddress(c), device, run: id });
    setNotice(ctx, c, { kind: 'deleted', device, run: id });
    return seeOther(c, '/runs');
  };
}
