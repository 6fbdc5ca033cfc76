/**
 * GET /devices/{id}: the device page, its runs keyset-paged; 404 outside the account's scope. A bad
 * cursor is answered 400 with the page, its alert and no runs (docs/contract.md section 22).
 */
import type { Context, Handler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { fail } from '../http/failures.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { page } from '../http/responses.ts';
import { devicePage } from '../views/device.ts';
import type { FilterError } from '../views/list_parts.ts';
import type { Refused } from '../views/form_errors.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { DEVICE_RUNS } from '../lists/pages.ts';
import { chrome, listQuery, viewer } from './page_helpers.ts';
import { PAGE_SIZE } from '../domain/paging.ts';

export function deviceShow(ctx: Ctx): Handler<UiEnv> {
  return async function deviceShowHandler(c) {
    const id = c.req.param('id') ?? '';
    const q = listQuery(c, DEVICE_RUNS);
    if (!q.ok) return deviceAnswer(ctx, c, id, { before: q.sent.before ?? '', error: q.error }, 400);
    return deviceAnswer(ctx, c, id, { before: q.values.before }, 200);
  };
}

/**
 * The page of the device `id` with its runs after `before` (none for a refused cursor, `error`),
 * and with `refused` the action form that was refused filled in as sent (its POST answers with
 * it); 404 when the account may not see the device.
 */
export async function deviceAnswer(
  ctx: Ctx,
  c: Context<UiEnv>,
  id: string,
  opts: { before?: string | undefined; error?: FilterError; refused?: Refused },
  status: ContentfulStatusCode,
): Promise<Response> {
  const { before, error, refused } = opts;
  const v = viewer(c);
  const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(v, id) : undefined;
  if (!device) return fail(c, 'deviceNotFound');
  const [storedBytes, runs, credential] = await Promise.all([
    ctx.store.storedBytes(id),
    error === undefined ? ctx.store.runsVisibleTo(v, { before, limit: PAGE_SIZE }, { device: id }) : { items: [] },
    ctx.store.deviceCredential(id),
  ]);
  const staleBefore = ctx.clock.now() - ctx.config.staleAfterMs;
  const shown = { device, storedBytes, runs, before, staleBefore, credential, error, refused };
  return page(c, devicePage(chrome(ctx, c), shown), status);
}
