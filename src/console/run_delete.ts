/** POST /runs/{device}/{id}/delete: any signed-in account, within its scope; logged with who did it. */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deleteRun } from '../actions/runs.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function runDelete(ctx: Ctx): Handler<UiEnv> {
  return async function runDeleteHandler(c) {
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    if (!(await deleteRun(ctx, actor(c), { device, id }))) return fail(c, 'runNotFound');
    setNotice(ctx, c, { kind: 'deleted', device, run: id });
    return seeOther(c, '/runs');
  };
}
