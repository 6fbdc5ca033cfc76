/**
 * POST /runs/bulk/confirm (docs/contract.md section 22): any signed-in account, as the action. The
 * run lists' bulk form posts here first, with the fields POST /runs/bulk takes; the answer is the
 * confirmation page: how many of the selected runs will be deleted (each named), how many are not
 * found (or not the account's), and the form that posts the same fields to POST /runs/bulk. A form
 * the action would refuse (another action, nothing selected) is refused here alike. POST /runs/bulk
 * itself is unchanged: a post with only `csrf` and its fields still acts.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import type { Viewer } from '../domain/accounts.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import type { StoredRun } from '../domain/runs.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { returnPath } from '../http/return_path.ts';
import { confirmPage, counted, namedRun, returnField } from '../views/confirm.ts';
import { chrome, viewer } from './page_helpers.ts';

export function runsBulkConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function runsBulkConfirmHandler(c) {
    const form = c.get('form');
    const action = form.get('action');
    if (action !== undefined && action !== 'delete') return fail(c, 'badBulkAction');
    const items = [...new Set(form.all('run'))];
    if (items.length === 0) return fail(c, 'noneSelected');
    const runs = await visibleRuns(ctx, viewer(c), items);
    const unknown = items.length - runs.length;
    const back = returnPath(form.get('return'), '/runs');
    const many = counted(runs.length, 'run', 'runs');
    const shown = chrome(ctx, c);
    return page(
      c,
      confirmPage(shown, {
        title: `Delete ${many}?`,
        consequence:
          runs.length === 0
            ? 'None of the selected runs would be deleted.'
            : `${many} will be deleted, their content removed for every account. The audit trail keeps that each was uploaded and deleted.`,
        items:
          runs.length === 0
            ? undefined
            : { caption: `The ${many} to delete`, named: runs.map((r) => namedRun(r, shown.now)) },
        untouched:
          unknown === 0
            ? undefined
            : `${counted(unknown, 'selected run was', 'selected runs were')} not found, or not yours: nothing is done to them.`,
        undo: true,
        action: '/runs/bulk',
        fields: [['action', 'delete'], ...items.map((item) => ['run', item] as const), ...returnField(back)],
        button: `Delete ${many}`,
        cancel: { href: back ?? '/runs', text: 'Back to the list' },
      }),
    );
  };
}

/** The selected runs (`{device}/{id}`) the account may delete, read one at a time in the order given, as the action acts. */
async function visibleRuns(ctx: Ctx, v: Viewer, items: readonly string[]): Promise<StoredRun[]> {
  const runs: StoredRun[] = [];
  for (const item of items) {
    const slash = item.indexOf('/');
    const device = item.slice(0, slash);
    const id = item.slice(slash + 1);
    const run =
      slash > 0 && DEVICE_ID.test(device) && RUN_ID.test(id) ? await ctx.store.runVisibleTo(v, device, id) : undefined;
    if (run) runs.push(run);
  }
  return runs;
}
