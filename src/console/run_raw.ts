/**
 * GET /runs/{device}/{id}/raw (docs/contract.md section 10): the run's bytes exactly as uploaded, as a
 * download that no browser renders (http/download.ts). Scoped like the run view (404 outside it);
 * logged, and so audited, by the action (actions/runs.ts).
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { runDownloadResponse } from '../http/download.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { downloadRun } from '../actions/runs.ts';
import { actor } from './page_helpers.ts';

export function runRaw(ctx: Ctx): Handler<UiEnv> {
  return async function runRawHandler(c) {
    const run = await downloadRun(ctx, actor(c), { device: c.req.param('device') ?? '', id: c.req.param('id') ?? '' });
    return run ? runDownloadResponse(c, run) : fail(c, 'runNotFound');
  };
}
