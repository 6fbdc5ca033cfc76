/**
 * A stored run as a download that no browser renders (docs/contract.md section 10): attachment,
 * octet-stream, nosniff, a sandboxed policy, read a chunk at a time as the client takes them, so
 * memory stays constant. The console's and the API's raw download both answer with it.
 */
import type { Context } from 'hono';
import type { StoredRun } from '../domain/runs.ts';
import { SANDBOXED_POLICY } from './security_headers.ts';

/**
 * The download's extension from the run's content type (docs/contract.md section 21): `.json` for
 * JSON and any `+json`, `.xml` for XML and any `+xml`, `.log` for the log types (`text/x-log`,
 * `text/log`: not registered, but what log shippers send; a `.log` opens in the same editors as a
 * `.txt`), `.txt` for other text, `.bin` for anything else. Parameters (charset) do not count.
 */
export function downloadExtension(contentType: string): string {
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  if (type === 'application/json' || type.endsWith('+json')) return '.json';
  if (type === 'application/xml' || type === 'text/xml' || type.endsWith('+xml')) return '.xml';
  if (type === 'text/x-log' || type === 'text/log') return '.log';
  if (type.startsWith('text/')) return '.txt';
  return '.bin';
}

export function runDownloadResponse(c: Context, run: StoredRun): Response {
  return c.body(pulled(run), 200, {
    'Content-Type': 'application/octet-stream',
    'Content-Length': String(run.size),
    // Run ids are [A-Za-z0-9._-]: nothing in the name needs quoting or encoding.
    'Content-Disposition': `attachment; filename="${run.id}${downloadExtension(run.contentType)}"`,
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
