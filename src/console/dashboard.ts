/** GET /: the fleet first, then runs, client versions, retention, and the version and self-test; shown even when the store is down. */
import type { Handler } from 'hono';
import { retentionOf } from '../domain/retention.ts';
import { page } from '../http/responses.ts';
import { dashboardPage } from '../views/dashboard.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { dashboardData, onlineLink } from './dashboard_data.ts';
import { chrome, viewer } from './page_helpers.ts';

export { CHART_DAYS, CLIENT_VERSIONS } from './dashboard_data.ts';

export function dashboard(ctx: Ctx): Handler<UiEnv> {
  return async function dashboardHandler(c) {
    const deps = {
      store: ctx.store,
      selfTest: ctx.selfTest,
      retention: retentionOf(ctx.config),
      staleAfterMs: ctx.config.staleAfterMs,
      onlineWithinMs: ctx.config.onlineWithinMs,
    };
    const data = await dashboardData(deps, viewer(c), ctx.clock.now());
    const shown = {
      version: ctx.config.version,
      online: { href: onlineLink(ctx.config.onlineWithinMs), withinMs: ctx.config.onlineWithinMs },
      staleAfterMs: ctx.config.staleAfterMs,
    };
    return page(c, dashboardPage(chrome(ctx, c), { ...data, ...shown }));
  };
}
