/**
 * GET /api/v1/runs/{device}/{id}/compare?with={device2}/{id2} (docs/contract.md section 21): the
 * unified diff of two text runs as `diff -u` writes it, so that GNU `patch` turns the path's run
 * (the old side) into `with` (the new one) byte for byte; an empty body when they are the same.
 * Scoped as the other run routes (404 when either is missing or outside the scope); `with` missing
 * or not `DEVICE/ID` is a 400 naming it, as the API's parameters are; 422 when a run is too large
 * or not text.
 */
import type { Handler } from 'hono';
import { compareRuns, type NotComparable, parseRunRef } from '../actions/run_compare.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { COMPARE_LIMIT, unifiedText } from '../domain/run_diff.ts';
import type { StoredRun } from '../domain/runs.ts';
import { apiOperation } from './auth.ts';
import { problem } from './problem.ts';

const whyText: Record<NotComparable, string> = {
  'too-big': `is larger than the ${COMPARE_LIMIT} bytes that can be compared`,
  binary: 'is not UTF-8 text',
};

/** `d_…/r1<TAB>2026-11-28T02:45:56.000Z`: the header `diff -u` writes with a file's name and time. */
const header = (r: StoredRun) => `${r.device}/${r.id}\t${new Date(r.uploadedAt).toISOString()}`;

export function apiRunCompare(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: ['with'] }, async (c, viewer) => {
    const other = parseRunRef(c.req.query('with') ?? '');
    if (!other)
      return problem(c, 400, 'bad parameter', 'with must be DEVICE/ID, the run to compare with', { field: 'with' });
    const path = { device: c.req.param('device') ?? '', id: c.req.param('id') ?? '' };
    const compared = await compareRuns(ctx, viewer, path, other);
    if (compared.outcome === 'not-found') return problem(c, 404, 'not found', 'no such run in your scope');
    if (compared.outcome === 'not-comparable') {
      const said = [compared.old, compared.new].flatMap((r, i) => {
        const why = i === 0 ? compared.why.old : compared.why.new;
        return why === undefined ? [] : [`${r.device}/${r.id} ${whyText[why]}`];
      });
      return problem(c, 422, 'not comparable', `${said.join('; ')}: download the runs to compare them`);
    }
    const text = unifiedText(compared.diff, header(compared.old), header(compared.new));
    return c.body(text, 200, { 'Content-Type': 'text/plain; charset=utf-8' });
  });
}
