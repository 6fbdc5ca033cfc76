/** GET /runs/{device}/{id}: one run, exactly as uploaded. Out of scope answers 404, like missing. */
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import type { Handler } from 'hono';

import { runPage } from '../views/run.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { chrome, viewer } from './page_helpers.ts';

export function runShow(ctx: Ctx): Handler<UiEnv> {
  return async function runShowHandler(c) {
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    const run =
      DEVICE_ID.test(device) && RUN_ID.test(id) ? await ctx.store.runVisibleTo(viewer(c), device, id) : undefined;
    if (!run) return fail(c, 'runNotFound');
    const body = runPage(chrome(ctx, c), run);
    return body instanceof ReadableStream
      ? c.body(body, 200, { 'Content-Type': 'text/html; charset=UTF-8' })
      : page(c, await body);
  };
}
