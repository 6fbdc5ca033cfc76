/**
 * The webhook outbox (docs/contract.md section 13). A note becomes one row of webhook_outbox when
 * an enabled endpoint subscribes to its event, naming those endpoints (space-separated ids), in the
 * transaction of the change it reports (Sql.noted, and the backends' own transactions): the change
 * and its message commit together or not at all. With no endpoint subscribed nothing is written.
 *
 * The sender moves the rows, oldest first, into webhook_messages and one pending delivery per
 * endpoint (fanOutSql), off the request path: a change appends one row to a table with no other
 * index, whatever the number of endpoints.
 */
import type { Note } from '../events/note.ts';
import type { Param } from './sql.ts';

/**
 * The endpoints that take a note: enabled, naming its event (`pattern`: notePattern), or `*` when
 * the event is in `*` (`star` = 1). `_` and `%` in a name are literal: the catalogue's names hold `_`.
 */
export function subscribedWhere(pattern: string, star: string): string {
  return `enabled = 1 AND (' ' || events || ' ' LIKE ${pattern} ESCAPE '\\' OR (${star} = 1 AND ' ' || events || ' ' LIKE '% * %'))`;
}

/** The ids of the endpoints `where` selects, space-separated (NULL for none): an outbox row's `endpoints`. */
export function owedEndpoints(where: string): string {
  return `SELECT string_agg(id, ' ') AS ids FROM webhook_endpoints WHERE ${where}`;
}

const message = (endpoints: string) => `INSERT INTO webhook_outbox (id, event, data, created_at, endpoints)
    SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), s.ids
    FROM (${owedEndpoints(endpoints)}) s WHERE s.ids IS NOT NULL`;

export const outboxSql = {
  message: message(subscribedWhere('?', '?')),
  /** One endpoint only, enabled or not (webhook.test): the caller asked for it by name. */
  messageTo: message('id = ?'),
} as const;

const fannedOut = `INSERT INTO webhook_deliveries (message_id, endpoint_id, event, status, attempts, next_attempt_at, created_at)
    SELECT m.id, e.id, m.event, 'pending', 0, m.created_at, m.created_at`;

/**
 * The sender's fan-out of up to `?` outbox rows, oldest first: each becomes a message (its id kept,
 * so the webhook-id) and one pending delivery per endpoint still there (one deleted since is left
 * out), and leaves the outbox in the same transaction. PostgreSQL: one statement whose rows are
 * locked FOR UPDATE SKIP LOCKED, so two instances move different ones. SQLite: three statements
 * that see the same rows, its one writer running them in one transaction.
 */
export const fanOutSql = {
  postgres: [
    `WITH m AS (DELETE FROM webhook_outbox WHERE seq = ANY (ARRAY(SELECT seq FROM webhook_outbox
          ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED))
        RETURNING id, event, data, created_at, endpoints),
      kept AS (INSERT INTO webhook_messages (id, event, data, created_at)
        SELECT id, event, data, created_at FROM m ON CONFLICT (id) DO NOTHING)
    ${fannedOut} FROM m JOIN webhook_endpoints e ON e.id = ANY (string_to_array(m.endpoints, ' '))`,
  ],
  sqlite: [
    `${fannedOut} FROM (SELECT id, event, endpoints, created_at FROM webhook_outbox ORDER BY seq LIMIT ?) m
      JOIN webhook_endpoints e ON instr(' ' || m.endpoints || ' ', ' ' || e.id || ' ') > 0`,
    `INSERT INTO webhook_messages (id, event, data, created_at)
      SELECT id, event, data, created_at FROM webhook_outbox ORDER BY seq LIMIT ? ON CONFLICT (id) DO NOTHING`,
    'DELETE FROM webhook_outbox WHERE seq IN (SELECT seq FROM webhook_outbox ORDER BY seq LIMIT ?)',
  ],
} as const;

/**
 * The enabled endpoints with their events, read once by a transaction that writes many notes (a
 * group of uploads on SQLite): matched here (subscribes), each note then costs plain inserts, or
 * nothing when no endpoint takes it. On one connection in a write transaction the endpoints cannot
 * change before the commit.
 */
export const subscriptionsSql = 'SELECT id, events FROM webhook_endpoints WHERE enabled = 1';

export interface Subscription {
  readonly id: string;
  readonly events: readonly string[];
}

export function subscriptionsFrom(rows: ReadonlyArray<Record<string, unknown>>): Subscription[] {
  return rows.map((r) => ({ id: r.id as string, events: (r.events as string).split(' ') }));
}

/** Whether an endpoint takes a note: as subscribedWhere says in SQL. */
export function subscribes(s: Subscription, n: Pick<Note, 'event' | 'inStar'>): boolean {
  return s.events.includes(n.event) || (n.inStar && s.events.includes('*'));
}

const insertMessage = 'INSERT INTO webhook_outbox (id, event, data, created_at, endpoints) VALUES (?, ?, ?, ?, ?)';

/**
 * The statement that writes a note for the endpoints read in its transaction (subscriptionsSql),
 * or undefined when none takes it.
 */
export function noteRow(n: Note, subscriptions: readonly Subscription[]): [string, Param[]] | undefined {
  const ids = subscriptions.filter((s) => subscribes(s, n)).map((s) => s.id);
  return ids.length === 0 ? undefined : [insertMessage, [n.id, n.event, n.data, n.at, ids.join(' ')]];
}

/** The LIKE pattern that finds `event` among an endpoint's space-separated events. */
export function notePattern(event: string): string {
  return `% ${event.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_')} %`;
}

/** The statement that writes a note, to run in the change's transaction. */
export function noteStatement(n: Note): [string, Param[]] {
  return [outboxSql.message, [n.id, n.event, n.data, n.at, notePattern(n.event), n.inStar ? 1 : 0]];
}

/** The statement that writes a note for one endpoint only. */
export function noteToStatement(n: Note, endpoint: string): [string, Param[]] {
  return [outboxSql.messageTo, [n.id, n.event, n.data, n.at, endpoint]];
}
