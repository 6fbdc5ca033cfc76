/**
 * GET /runs/{device}/{id}/raw (CONTRACT section 10): the run's bytes exactly as uploaded, as a
 * download that no browser renders (attachment, octet-stream, nosniff, a sandboxed policy), read a
 * chunk at a time as the client takes them, so memory stays constant. Scoped like the run view
 * (404 outside it); logged, and so audited.
 */
import { fail } from '../http/failures.ts';
import type { Context, Handler } from 'hono';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { clientAddress } from '../http/client_address.ts';
import { SANDBOXED_POLICY } from '../http/security_headers.ts';
import type { StoredRun } from '../domain/runs.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { viewer } from './page_helpers.ts';
import { EVENTS } from '../events/catalogue.ts';

export function runRaw(ctx: Ctx): Handler<UiEnv> {
  return async function runRawHandler(c) {
    const download = await runDownload(ctx, c, viewer(c), c.req.param('device') ?? '', c.req.param('id') ?? '');
    return download ?? fail(c, 'runNotFound');
  };
}

/** The download of a run the viewer may see (logged, so audited), or undefined outside the scope. */
export async function runDownload(
  ctx: Ctx,
  c: Context,
  v: Viewer,
  device: string,
  id: string,
): Promise<Response | undefined> {
  const run = DEVICE_ID.test(device) && RUN_ID.test(id) ? await ctx.store.runVisibleTo(v, device, id) : undefined;
  if (!run) return undefined;
  await ctx.logger.emit(EVENTS.runDownloaded, { account: v.subject, client: clientAddress(c), device, run: id });
  return c.body(pulled(run), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(run.size),
    // Run ids are [A-Za-z0-9._-]: nothing in the name needs quoting or encoding.
    'Content-Disposition': `attachment; filename="${device}_${id}.run"`,
    'Content-Security-Policy': SANDBOXED_POLICY,
    'Cache-Control': 'no-store',
  });
}

/** The run's chunks as a stream that reads the next one only when the client has taken the last. */
function pulled(run: StoredRun): ReadableStream<Uint8Array> {
  const chunks = run.read()[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value);
      },
      async cancel() {
        await chunks.return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
