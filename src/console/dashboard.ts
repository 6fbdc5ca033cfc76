/** GET /: version, the self-test result and counts of what the account may see; shown even when the store is down. */
import type { Handler } from 'hono';
import { retentionOf } from '../domain/retention.ts';
import { page } from '../http/responses.ts';
import { dashboardPage } from '../views/dashboard.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { chrome, viewer } from './page_helpers.ts';
import { retentionStatus } from './retention_status.ts';

/** Days shown in the uploads chart: two weeks, today last. */
export const CHART_DAYS = 14;

export function dashboard(ctx: Ctx): Handler<UiEnv> {
  return async function dashboardHandler(c) {
    // The dashboard must show a failing store (its self-test says so), so counts may be missing.
    const now = ctx.clock.now();
    const [checks, counts, perDay, retention] = await Promise.all([
      ctx.selfTest.run(),
      ctx.store.countsVisibleTo(viewer(c)).catch(() => undefined),
      ctx.store.uploadsPerDay(viewer(c), CHART_DAYS, now).catch(() => undefined),
      retentionStatus(ctx.store, retentionOf(ctx.config), viewer(c), now),
    ]);
    // The page shows details to admins only; they are not even handed to it for anyone else.
    const shown = viewer(c).admin ? checks : checks.map((check) => ({ ...check, detail: '' }));
    return page(
      c,
      dashboardPage(chrome(ctx, c), { version: ctx.config.version, checks: shown, counts, perDay, retention }),
    );
  };
}
