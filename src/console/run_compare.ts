/**
 * GET /runs/{device}/{id}/compare?with={device2}/{id2} (docs/contract.md section 21): the path's run
 * is the old side, `with` the new one. Both must be in the viewer's scope; otherwise, and also when
 * `with` is missing, given twice or not `DEVICE/ID`, the answer is the 404 of a missing run, so
 * the page never tells which of the two exists.
 */
import type { Handler } from 'hono';
import { compareRuns, parseRunRef } from '../actions/run_compare.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { runComparePage, runNotComparablePage } from '../views/run_compare.ts';
import { chrome, viewer } from './page_helpers.ts';

export function runCompare(ctx: Ctx): Handler<UiEnv> {
  return async function runCompareHandler(c) {
    const given = c.req.queries('with') ?? [];
    const other = given.length === 1 ? parseRunRef(given[0] ?? '') : undefined;
    const path = { device: c.req.param('device') ?? '', id: c.req.param('id') ?? '' };
    const compared = other ? await compareRuns(ctx, viewer(c), path, other) : { outcome: 'not-found' as const };
    if (compared.outcome === 'not-found') return fail(c, 'runNotFound');
    if (compared.outcome === 'not-comparable')
      return page(c, runNotComparablePage(chrome(ctx, c), compared.old, compared.new, compared.why));
    return page(c, runComparePage(chrome(ctx, c), compared.old, compared.new, compared.diff));
  };
}
