/**
 * POST /runs/bulk: any signed-in account. One `run` field (`{device}/{id}`) per checked box; each
 * run the account may delete is deleted exactly as alone (actions/bulk.ts), the others are
 * counted in the summary and left as they are. 303 to /runs, or to the list's `return`
 * (docs/contract.md section 22). The lists' form posts to its confirmation step first
 * (runs_bulk_confirm.ts); this route acts on any post, as it always did.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { bulkDeleteRuns } from '../actions/bulk.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function runsBulk(ctx: Ctx): Handler<UiEnv> {
  return async function runsBulkHandler(c) {
    const form = c.get('form');
    // The form carries no action field of its own: deleting is the only bulk action on runs.
    const action = form.get('action');
    if (action !== undefined && action !== 'delete') return fail(c, 'badBulkAction');
    const items = [...new Set(form.all('run'))];
    if (items.length === 0) return fail(c, 'noneSelected');
    const counts = await bulkDeleteRuns(ctx, actor(c), items);
    setNotice(ctx, c, { kind: 'bulk-delete-runs', ...counts });
    return seeOther(c, backTo(form.get('return'), '/runs'));
  };
}
