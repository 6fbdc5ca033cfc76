/**
 * A stored run as a download that no browser renders (docs/contract.md section 10): attachment,
 * octet-stream, nosniff, a sandboxed policy, read a chunk at a time as the client takes them, so
 * memory stays constant. The console's and the API's raw download both answer with it.
 */
import type { Context } from 'hono';
import type { StoredRun } from '../domain/runs.ts';
import { SANDBOXED_POLICY } from './security_headers.ts';

export function runDownloadResponse(c: Context, run: StoredRun): Response {
  return c.body(pulled(run), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(run.size),
    // Run ids are [A-Za-z0-9._-]: nothing in the name needs quoting or encoding.
    'Content-Disposition': `attachment; filename="${run.device}_${run.id}.run"`,
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
