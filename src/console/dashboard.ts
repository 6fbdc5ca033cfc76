/** GET /: version, the self-test result and counts of what the account may see; shown even when the store is down. */
import type { Handler } from 'hono';
import { retentionOf } from '../domain/retention.ts';
import { page } from '../http/responses.ts';
import { dashboardPage } from '../views/dashboard.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { chrome, viewer } from './page_helpers.ts';
import { retentionStatus } from './retention_status.ts';

/** How many client versions the dashboard shows: the most common. */
export const CLIENT_VERSIONS = 10;

/** Days shown in the uploads chart: two weeks, today last. */
export const CHART_DAYS = 14;

export function dashboard(ctx: Ctx): Handler<UiEnv> {
  return async function dashboardHandler(c) {
    // The dashboard must show a failing store (its self-test says so), so counts may be missing.
    const now = ctx.clock.now();
    const admin = viewer(c).admin;
    const [checks, counts, perDay, retention, pending, clientVersions, disabledOwners] = await Promise.all([
      ctx.selfTest.run(),
      ctx.store.countsVisibleTo(viewer(c)).catch(() => undefined),
      ctx.store.uploadsPerDay(viewer(c), CHART_DAYS, now).catch(() => undefined),
      retentionStatus(ctx.store, retentionOf(ctx.config), viewer(c), now),
      // How many devices wait for approval (docs/contract.md section 16): administrators decide, so they see it.
      admin ? ctx.store.pendingDevices().catch(() => undefined) : undefined,
      // The fleet's client versions (docs/contract.md section 16): the ten most common, for administrators.
      admin ? ctx.store.factValueCounts('client_version', CLIENT_VERSIONS).catch(() => undefined) : undefined,
      // Devices whose owner left (docs/contract.md section 19): administrators hand them over.
      admin ? ctx.store.disabledOwnersDevices().catch(() => undefined) : undefined,
    ]);
    // The page shows details to admins only; they are not even handed to it for anyone else.
    const shown = admin ? checks : checks.map((check) => ({ ...check, detail: '' }));
    return page(
      c,
      dashboardPage(chrome(ctx, c), {
        version: ctx.config.version,
        checks: shown,
        counts,
        perDay,
        retention,
        pending,
        clientVersions,
        disabledOwners,
      }),
    );
  };
}
