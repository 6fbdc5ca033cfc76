/**
 * Webhook endpoints, the outbox's deliveries and their attempts (docs/contract.md section 13).
 * Claims are one statement: on PostgreSQL its rows are locked FOR UPDATE SKIP LOCKED, so two
 * instances claiming at once take different deliveries; on SQLite the one connection is the one
 * writer. A claim holds a delivery for CLAIM_MS; a sender that dies holding it lets it go.
 */
import type { ClaimedDelivery, DeliveryStatus, Webhook, WebhookAttempt } from '../domain/webhooks.ts';
import { eventsColumn } from '../domain/webhooks.ts';
import type { Note } from '../events/note.ts';
import { noteStatement, noteToStatement } from './outbox.ts';
import type { Param, Row, Sql } from './sql.ts';
import type { WebhooksStore } from './store.ts';

const columns = `id, url, events, description, enabled, created_at, created_by, rotated_at, failures,
  failing_since, last_attempt_at, last_outcome`;

export const webhooksSql = {
  insert: `INSERT INTO webhook_endpoints (id, url, events, description, enabled, secret, created_at, created_by)
    VALUES (?, ?, ?, ?, 1, ?, ?, ?) RETURNING ${columns}`,
  all: `SELECT ${columns} FROM webhook_endpoints ORDER BY seq DESC LIMIT ?`,
  one: `SELECT ${columns} FROM webhook_endpoints WHERE id = ?`,
  // Enabling starts a new run of failures; disabling keeps the record of the last one.
  enable: 'UPDATE webhook_endpoints SET enabled = 1, failures = 0, failing_since = NULL WHERE id = ? AND enabled = 0',
  disable: 'UPDATE webhook_endpoints SET enabled = 0 WHERE id = ? AND enabled = 1',
  deleteAttempts: 'DELETE FROM webhook_attempts WHERE endpoint_id = ?',
  deleteDeliveries: 'DELETE FROM webhook_deliveries WHERE endpoint_id = ?',
  deleteEndpoint: 'DELETE FROM webhook_endpoints WHERE id = ?',
  rotate: `UPDATE webhook_endpoints SET previous_secret = secret, secret = ?, rotated_at = ? WHERE id = ?`,
  attempts: `SELECT a.delivery_seq, d.message_id, d.event, a.at, a.status_code, a.error, a.duration_ms, d.status
    FROM webhook_attempts a JOIN webhook_deliveries d ON d.seq = a.delivery_seq
    WHERE a.endpoint_id = ? ORDER BY a.seq DESC LIMIT ?`,
  // Again from the start of the schedule, same message (and so the same webhook-id).
  redeliver: `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at = ?, claimed_until = NULL,
    done_at = NULL WHERE seq = ? AND endpoint_id = ? RETURNING message_id`,
  // The endpoint is checked by EXISTS, not IN: with IN, SQLite reads every delivery of each enabled
  // endpoint (its index on endpoint_id), finished ones too, and sorts them: a claim's cost grew with
  // the table. With EXISTS it walks the due index in order and stops at the limit.
  // A materialized CTE: as a subquery of IN, PostgreSQL may run the locking SELECT more than once
  // and claim more than the limit. Its outer conditions are checked again on the locked rows.
  claim: (skipLocked: string) => `WITH due AS MATERIALIZED (SELECT seq FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= ? AND (claimed_until IS NULL OR claimed_until <= ?)
        AND EXISTS (SELECT 1 FROM webhook_endpoints e WHERE e.id = webhook_deliveries.endpoint_id AND e.enabled = 1)
      ORDER BY next_attempt_at LIMIT ? ${skipLocked})
    UPDATE webhook_deliveries SET attempts = attempts + 1, claimed_until = ?
    WHERE seq IN (SELECT seq FROM due) AND status = 'pending' AND (claimed_until IS NULL OR claimed_until <= ?)
    RETURNING seq, attempts`,
  /** The claimed deliveries, all in one query: `n` placeholders for their seqs. */
  claimed: (n: number) => `SELECT d.seq, d.attempts, d.message_id, m.event, m.data, m.created_at, e.id AS endpoint,
      e.url, e.secret, e.previous_secret, e.rotated_at
    FROM webhook_deliveries d JOIN webhook_messages m ON m.id = d.message_id
      JOIN webhook_endpoints e ON e.id = d.endpoint_id
    WHERE d.seq IN (${Array.from({ length: n }, () => '?').join(', ')}) ORDER BY d.next_attempt_at, d.seq`,
  attempt: `INSERT INTO webhook_attempts (delivery_seq, endpoint_id, at, status_code, error, duration_ms)
    VALUES (?, ?, ?, ?, ?, ?)`,
  // Only the claim's own attempt is finished: a redelivery or another sender's claim since is left alone.
  delivered: `UPDATE webhook_deliveries SET status = 'delivered', done_at = ?, claimed_until = NULL
    WHERE seq = ? AND attempts = ? AND status = 'pending'`,
  retry: `UPDATE webhook_deliveries SET next_attempt_at = ?, claimed_until = NULL
    WHERE seq = ? AND attempts = ? AND status = 'pending'`,
  failed: `UPDATE webhook_deliveries SET status = 'failed', done_at = ?, claimed_until = NULL
    WHERE seq = ? AND attempts = ? AND status = 'pending'`,
  endpointOk: `UPDATE webhook_endpoints SET failures = 0, failing_since = NULL, last_attempt_at = ?, last_outcome = ?
    WHERE id = ?`,
  endpointFailed: `UPDATE webhook_endpoints SET failures = failures + 1, failing_since = coalesce(failing_since, ?),
    last_attempt_at = ?, last_outcome = ? WHERE id = ?`,
  disableFailing: 'UPDATE webhook_endpoints SET enabled = 0 WHERE id = ? AND enabled = 1 AND failing_since <= ?',
  // Pending: the deliveries waiting, and those the outbox's rows are owed (one per endpoint id).
  depth: `SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') AS n,
      (SELECT min(created_at) FROM webhook_deliveries WHERE status = 'pending') AS oldest,
      (SELECT sum(length(endpoints) - length(replace(endpoints, ' ', '')) + 1) FROM webhook_outbox) AS unsent,
      (SELECT created_at FROM webhook_outbox ORDER BY seq LIMIT 1) AS unsent_oldest`,
  pruneAttempts: `DELETE FROM webhook_attempts WHERE delivery_seq IN (
    SELECT seq FROM webhook_deliveries WHERE status <> 'pending' AND done_at < ? ORDER BY done_at LIMIT ?)`,
  pruneDeliveries: `DELETE FROM webhook_deliveries WHERE seq IN (
    SELECT seq FROM webhook_deliveries WHERE status <> 'pending' AND done_at < ? ORDER BY done_at LIMIT ?)`,
  pruneMessages: `DELETE FROM webhook_messages WHERE id IN (SELECT m.id FROM webhook_messages m
    WHERE m.created_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.message_id = m.id) LIMIT ?)`,
} as const;

const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function webhookFrom(r: Row): Webhook {
  return {
    id: r.id as string,
    url: r.url as string,
    events: (r.events as string).split(' ').filter(Boolean),
    description: r.description as string,
    enabled: Number(r.enabled) === 1,
    createdAt: Number(r.created_at),
    createdBy: r.created_by as string,
    rotatedAt: num(r.rotated_at),
    failures: Number(r.failures),
    failingSince: num(r.failing_since),
    lastAttemptAt: num(r.last_attempt_at),
    lastOutcome: (r.last_outcome as string | null) ?? null,
  };
}

function attemptFrom(r: Row): WebhookAttempt {
  return {
    delivery: Number(r.delivery_seq),
    message: r.message_id as string,
    event: r.event as string,
    at: Number(r.at),
    statusCode: num(r.status_code),
    error: (r.error as string | null) ?? null,
    durationMs: Number(r.duration_ms),
    status: r.status as DeliveryStatus,
  };
}

function claimedFrom(r: Row): ClaimedDelivery {
  return {
    seq: Number(r.seq),
    attempt: Number(r.attempts),
    message: r.message_id as string,
    event: r.event as string,
    data: r.data as string,
    createdAt: Number(r.created_at),
    endpoint: r.endpoint as string,
    url: r.url as string,
    sealedSecret: r.secret as string,
    sealedPrevious: (r.previous_secret as string | null) ?? null,
    rotatedAt: num(r.rotated_at),
  };
}

type Finished = Parameters<WebhooksStore['finishAttempts']>[0][number];

/** The statements that record one attempt and its consequence; the last changes a row when it disabled the endpoint. */
function finishStatements({ attempt: a, next }: Finished): Array<[string, Param[]]> {
  const record: [string, Param[]] = [
    webhooksSql.attempt,
    [a.seq, a.endpoint, a.at, a.statusCode, a.error, a.durationMs],
  ];
  const outcome = a.statusCode === null ? (a.error ?? 'error') : String(a.statusCode);
  if (next.kind === 'delivered')
    return [
      record,
      [webhooksSql.delivered, [a.at, a.seq, a.attempt]],
      [webhooksSql.endpointOk, [a.at, outcome, a.endpoint]],
    ];
  return [
    record,
    next.kind === 'retry'
      ? [webhooksSql.retry, [next.at, a.seq, a.attempt]]
      : [webhooksSql.failed, [a.at, a.seq, a.attempt]],
    [webhooksSql.endpointFailed, [a.at, a.at, outcome, a.endpoint]],
    [webhooksSql.disableFailing, [a.endpoint, next.disableIfFailingSince]],
  ];
}

/** Every attempt of `finished` in one transaction, in order: one commit for a batch of answers. */
async function finishAll(db: Sql, finished: readonly Finished[]): Promise<Array<{ disabled: boolean }>> {
  if (finished.length === 0) return [];
  const statements = finished.map(finishStatements);
  const counts = await db.atomically(statements.flat());
  let at = 0;
  return statements.map((s, i) => {
    at += s.length;
    return { disabled: finished[i]?.next.kind !== 'delivered' && counts[at - 1] === 1 };
  });
}

/** Outbox rows fanned out into deliveries at a time (outbox.ts fanOutSql), when the due deliveries run short. */
const FAN_OUT_BATCH = 64;

export function webhooksStore(db: Sql): WebhooksStore {
  /** The deliveries written (each backend's first statement writes them). */
  async function fanOut(): Promise<number> {
    const [inserted = 0] = await db.atomically(db.fanOut.map((s) => [s, [FAN_OUT_BATCH]] as const));
    return inserted;
  }

  return {
    async createWebhook(w) {
      const row = await db.get(
        webhooksSql.insert,
        w.id,
        w.url,
        eventsColumn(w.events),
        w.description,
        w.sealedSecret,
        w.createdAt,
        w.createdBy,
      );
      return webhookFrom(row as Row);
    },
    async webhooks(limit) {
      return (await db.all(webhooksSql.all, limit)).map(webhookFrom);
    },
    async webhook(id) {
      const row = await db.get(webhooksSql.one, id);
      return row && webhookFrom(row);
    },
    async enableWebhook(id) {
      return (await db.run(webhooksSql.enable, id)) === 1;
    },
    async disableWebhook(id) {
      return (await db.run(webhooksSql.disable, id)) === 1;
    },
    async deleteWebhook(id) {
      const counts = await db.atomically([
        [webhooksSql.deleteAttempts, [id]],
        [webhooksSql.deleteDeliveries, [id]],
        [webhooksSql.deleteEndpoint, [id]],
      ]);
      return counts[2] === 1;
    },
    async rotateWebhookSecret(id, sealedSecret, at) {
      return (await db.run(webhooksSql.rotate, sealedSecret, at, id)) === 1;
    },
    async webhookAttempts(id, limit) {
      return (await db.all(webhooksSql.attempts, id, limit)).map(attemptFrom);
    },
    async redeliver(endpoint, delivery, at) {
      const row = await db.get(webhooksSql.redeliver, at, delivery, endpoint);
      return row?.message_id as string | undefined;
    },
    // A note alone is one statement: it needs no transaction of its own.
    async enqueue(n: Note) {
      const [sql, params] = noteStatement(n);
      await db.run(sql, ...params);
    },
    async enqueueTo(endpoint, n) {
      const [sql, params] = noteToStatement(n, endpoint);
      return (await db.run(sql, ...params)) === 1;
    },
    async claimDeliveries(now, limit, claimMs) {
      const claim = (n: number) => db.all(webhooksSql.claim(db.skipLocked), now, now, n, now + claimMs, now);
      let rows = await claim(limit);
      // Messages become deliveries when the due ones run short, FAN_OUT_BATCH at a time.
      if (rows.length < limit && (await fanOut()) > 0) rows = rows.concat(await claim(limit - rows.length));
      if (rows.length === 0) return [];
      // One query for the claim's rows, not one per delivery: each upload's run.stored fans out.
      const seqs = rows.map((r) => Number(r.seq));
      return (await db.all(webhooksSql.claimed(seqs.length), ...seqs)).map(claimedFrom);
    },
    async finishAttempt(a, next) {
      const [result] = await finishAll(db, [{ attempt: a, next }]);
      return result ?? { disabled: false };
    },
    async finishAttempts(finished) {
      return finishAll(db, finished);
    },
    async outboxDepth() {
      const r = await db.get(webhooksSql.depth);
      const oldest = [num(r?.oldest), num(r?.unsent_oldest)].filter((t) => t !== null);
      return {
        pending: Number(r?.n ?? 0) + Number(r?.unsent ?? 0),
        oldest: oldest.length ? Math.min(...oldest) : null,
      };
    },
    async pruneWebhooks(before, limit) {
      const [, deliveries] = await db.atomically([
        [webhooksSql.pruneAttempts, [before, limit]],
        [webhooksSql.pruneDeliveries, [before, limit]],
        [webhooksSql.pruneMessages, [before, limit]],
      ]);
      return deliveries ?? 0;
    },
  };
}
