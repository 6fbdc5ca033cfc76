/** GET /: the fleet first, then runs, client versions, retention, and the version and self-test; shown even when the store is down. */
import type { Handler } from 'hono';
import { retentionOf } from '../domain/retention.ts';
import { page } from '../http/responses.ts';
import { dashboardPage } from '../views/dashboard.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { dashboardSnapshots, onlineLink } from './dashboard_data.ts';
import { chrome, viewer } from './page_helpers.ts';

export { CHART_DAYS, CLIENT_VERSIONS } from './dashboard_data.ts';

export function dashboard(ctx: Ctx): Handler<UiEnv> {
  const deps = {
    store: ctx.store,
    selfTest: ctx.selfTest,
    retention: retentionOf(ctx.config),
    staleAfterMs: ctx.config.staleAfterMs,
    onlineWithinMs: ctx.config.onlineWithinMs,
  };
  // The numbers of one page are one snapshot, kept a few seconds per scope (docs/contract.md section 22).
  const dashboardSnapshot = dashboardSnapshots(deps, ctx.clock);
  return async function dashboardHandler(c) {
    const data = await dashboardSnapshot(viewer(c));
    const shown = {
      version: ctx.config.version,
      online: { href: onlineLink(ctx.config.onlineWithinMs), withinMs: ctx.config.onlineWithinMs },
      staleAfterMs: ctx.config.staleAfterMs,
    };
    return page(c, dashboardPage(chrome(ctx, c), { ...data, ...shown }));
  };
}
