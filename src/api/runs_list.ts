/**
 * GET /api/v1/runs (docs/contract.md sections 11 and 21): the run list of the console as JSON, with
 * the same filters (text, device, privacy, since, until, flagged), keyset cursor (`before`) and
 * scoping, for the account the token stands for; parameters as the list declares them
 * (lists/runs.ts), strictly. A search's runs each carry `match`, their first matching line.
 */
import type { Handler } from 'hono';
import { type ListedRun, listRuns } from '../actions/run_search.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { parameterNames } from '../lists/parameters.ts';
import { RUNS, runFilter } from '../lists/runs.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { apiOperation } from './auth.ts';
import { listParameters } from './params.ts';
import { pageJson, runJson } from './resources.ts';

export function apiRunsList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: parameterNames(RUNS) }, async (c, viewer) => {
    const q = listParameters(c, RUNS);
    if (q instanceof Response) return q;
    const page = await listRuns(ctx, viewer, { before: q.before, limit: PAGE_SIZE }, runFilter(q), { named: false });
    return c.json(pageJson(page, listedRunJson));
  });
}

/** A run as the list shows it: with `match` when a search found it (its line's text trimmed as in the console). */
function listedRunJson(r: ListedRun) {
  return r.match === undefined ? runJson(r) : { ...runJson(r), match: { line: r.match.line, text: r.match.text } };
}
