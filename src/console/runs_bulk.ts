/**
 * POST /runs/bulk: any signed-in account. One `run` field (`{device}/{id}`) per checked box; each
 * run the account may delete is deleted exactly as alone (fleet_actions.ts), the others are
 * counted in the summary and left as they are. 303 to /runs.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deleteRun } from '../actions/fleet.ts';
import { type BulkCounts, setNotice } from './notice.ts';
import { viewer } from './page_helpers.ts';

export function runsBulk(ctx: Ctx): Handler<UiEnv> {
  return async function runsBulkHandler(c) {
    const form = c.get('form');
    // The form carries no action field of its own: deleting is the only bulk action on runs.
    const action = form.get('action');
    if (action !== undefined && action !== 'delete') return fail(c, 'badBulkAction');
    const items = [...new Set(form.all('run'))];
    if (items.length === 0) return fail(c, 'noneSelected');
    const v = viewer(c);
    const counts: BulkCounts = { done: 0, unchanged: 0, notRevoked: 0, unknown: 0 };
    for (const item of items) {
      const slash = item.indexOf('/');
      const deleted = slash > 0 && (await deleteRun(ctx, c, v, item.slice(0, slash), item.slice(slash + 1)));
      counts[deleted ? 'done' : 'unknown']++;
    }
    setNotice(ctx, c, { kind: 'bulk-delete-runs', ...counts });
    return seeOther(c, '/runs');
  };
}
