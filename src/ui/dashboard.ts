/** GET /: version, the self-test result and counts of what the account may see; shown even when the store is down. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import type { CheckResult } from '../selftest/selftest.ts';
import { dashboardPage } from '../views/dashboard.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { chrome, viewer } from './page_helpers.ts';

/** Days shown in the uploads chart: two weeks, today last. */
const CHART_DAYS = 14;

export function dashboard(ctx: Ctx): Handler<UiEnv> {
  return async function dashboardHandler(c) {
    // The dashboard must show a failing store (its self-test says so), so counts may be missing.
    const now = ctx.clock.now();
    const [checks, counts, perDay] = await Promise.all([
      ctx.selfTest.run(),
      ctx.store.countsVisibleTo(viewer(c)).catch(() => undefined),
      ctx.store.uploadsPerDay(viewer(c), CHART_DAYS, now).catch(() => undefined),
    ]);
    const shown = viewer(c).admin ? checks : checks.map(outcomeOnly);
    return page(c, dashboardPage(chrome(ctx, c), { version: ctx.config.version, checks: shown, counts, perDay }));
  };
}

/**
 * What a check found (paths, error texts of the store or the provider, pins) is for administrators;
 * other accounts see each check's outcome.
 */
function outcomeOnly(check: CheckResult): CheckResult {
  const detail = !check.ok
    ? 'failed; an administrator sees why'
    : check.warning
      ? 'passed; needs an administrator’s attention soon'
      : 'passed';
  return { ...check, detail };
}
