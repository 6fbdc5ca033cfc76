/** GET /: version, the self-test result and counts of what the account may see; shown even when the store is down. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { dashboardPage } from '../views/dashboard.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { chrome, viewer } from './page_helpers.ts';

export function dashboard(ctx: Ctx): Handler<UiEnv> {
  return async function dashboardHandler(c) {
    // The dashboard must show a failing store (its self-test says so), so counts may be missing.
    const [checks, counts] = await Promise.all([
      ctx.selfTest.run(),
      ctx.store.countsVisibleTo(viewer(c)).catch(() => undefined),
    ]);
    return page(c, dashboardPage(chrome(ctx, c), { version: ctx.config.version, checks, counts }));
  };
}
