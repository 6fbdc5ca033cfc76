/**
 * POST /runs/{device}/{id}/delete: any signed-in account, within its scope; logged with who did it.
 * 303 to the run list, or to the list's `return` (docs/contract.md section 22). Its confirmation page
 * is GET /runs/{device}/{id}/delete (run_delete_confirm.ts).
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
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
    return seeOther(c, backTo(c.get('form').get('return'), '/runs'));
  };
}
