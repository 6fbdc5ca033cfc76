/**
 * GET /audit.jsonl: admin only (docs/contract.md section 9); the records of /audit, filtered alike, as
 * JSON lines, newest first. The body is pulled: each batch of the store is read only when the
 * client has taken the last, so memory stays constant whatever the size of the trail.
 *
 * Content-Type application/x-ndjson: neither it nor application/jsonl is registered with IANA,
 * and this is the name log tools (Elasticsearch's bulk API, Vector, Loki's clients) recognize.
 */
import type { Handler } from 'hono';
import type { AuditRecord } from '../domain/audit.ts';
import { auditJson } from '../audit/audit_json.ts';
import { AUDIT, auditFilter } from '../lists/audit.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { listParameters } from './page_helpers.ts';
import { logJson } from '../log/log_text.ts';

/** Records per store read: a few hundred kilobytes of lines at most. */
export const AUDIT_STREAM_BATCH = 500;

export const AUDIT_JSONL_TYPE = 'application/x-ndjson';

export function auditLine(r: AuditRecord): string {
  // logJson: C1 controls, U+2028 and bidi overrides escaped too, for whoever reads the export in a terminal.
  return `${logJson(auditJson(r))}\n`;
}

export function auditJsonl(ctx: Ctx): Handler<UiEnv> {
  return function auditJsonlHandler(c) {
    const q = listParameters(c, AUDIT);
    if (q instanceof Response) return q;
    const batches = ctx.store.auditBatches(auditFilter(q), AUDIT_STREAM_BATCH)[Symbol.asyncIterator]();
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          const next = await batches.next();
          if (next.done) return controller.close();
          controller.enqueue(encoder.encode(next.value.map(auditLine).join('')));
        },
        async cancel() {
          await batches.return?.();
        },
      },
      { highWaterMark: 0 },
    );
    return c.body(body, 200, {
      'Content-Type': `${AUDIT_JSONL_TYPE}; charset=utf-8`,
      'Content-Disposition': 'attachment; filename="audit.jsonl"',
      'Cache-Control': 'no-store',
    });
  };
}
