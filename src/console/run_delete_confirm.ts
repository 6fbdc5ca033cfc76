/**
 * GET /runs/{device}/{id}/delete (docs/contract.md section 22): any signed-in account, within its
 * scope, as the action. What deleting the run does, with the form that posts to POST
 * /runs/{device}/{id}/delete; a run out of scope answers the action's own 404.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { queryReturn } from '../http/return_path.ts';
import { confirmPage, namedRun, returnField } from '../views/confirm.ts';
import { html } from '../views/html.ts';
import { runPath } from '../views/runs.ts';
import { chrome, viewer } from './page_helpers.ts';

export function runDeleteConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function runDeleteConfirmHandler(c) {
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    const valid = DEVICE_ID.test(device) && RUN_ID.test(id);
    const run = valid ? await ctx.store.runVisibleTo(viewer(c), device, id) : undefined;
    if (!run) return fail(c, 'runNotFound');
    const back = queryReturn(c.req.url, '/runs');
    const path = runPath(run);
    const shown = chrome(ctx, c);
    return page(
      c,
      confirmPage(shown, {
        title: `Delete run ${run.id}?`,
        consequence: html`Deleting ${namedRun(run, shown.now)} removes its content for every account. The audit
          trail keeps that it was uploaded and deleted.`,
        undo: true,
        action: `${path}/delete`,
        fields: returnField(back),
        button: 'Delete 1 run',
        cancel: back === undefined ? { href: path, text: 'Back to the run' } : { href: back, text: 'Back to the list' },
      }),
    );
  };
}
