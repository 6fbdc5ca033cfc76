/**
 * GET /runs/{device}/{id}: one run, exactly as uploaded, a page of its lines at a time or the lines
 * a find matched (docs/contract.md section 21). Out of scope answers 404, like missing; a bad `line`
 * or `find` answers 400 with the page, the message beside its field.
 */
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import type { Handler } from 'hono';

import { runPage, type RunContent } from '../views/run.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { findInRun } from '../domain/run_find.ts';
import { readRunPage } from '../domain/run_pages.ts';
import type { StoredRun } from '../domain/runs.ts';
import { chrome, viewer } from './page_helpers.ts';
import { type RunQuery, runQuery } from './run_query.ts';

export function runShow(ctx: Ctx): Handler<UiEnv> {
  return async function runShowHandler(c) {
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    const valid = DEVICE_ID.test(device) && RUN_ID.test(id);
    const run = valid ? await ctx.store.runVisibleTo(viewer(c), device, id) : undefined;
    if (!run) return fail(c, 'runNotFound');
    const params = new URL(c.req.url).searchParams;
    const query = runQuery(params);
    // The "Go to line" form: its page, scrolled to the line (a GET form cannot add the fragment itself).
    if (params.get('go') === 'line' && params.has('line') && query.faults.line === undefined && !params.has('find'))
      return c.redirect(`/runs/${device}/${id}?line=${query.want.line}#L${query.want.line}`, 303);
    const [content, previous] = await Promise.all([
      runContent(run, query),
      ctx.store.previousRun(viewer(c), device, id),
    ]);
    const bad = content.kind !== 'binary' && (query.faults.line !== undefined || query.faults.find !== undefined);
    return page(c, runPage(chrome(ctx, c), run, content, query, previous), bad ? 400 : 200);
  };
}

/** What the page shows of the run: the lines a good find matched, else the page `line` asks for. */
export async function runContent(run: StoredRun, query: RunQuery): Promise<RunContent> {
  if (query.find !== undefined) {
    const result = await findInRun(run, query.find);
    if (result.kind === 'text') return { kind: 'found', result, text: query.find };
  }
  const read = await readRunPage(run, query.want);
  return read.kind === 'binary' ? { kind: 'binary', run: read } : { kind: 'page', page: read };
}
