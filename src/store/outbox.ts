/**
 * The webhook outbox's writes (docs/contract.md section 13): a note becomes one message when an
 * enabled endpoint subscribes to its event, and one pending delivery per such endpoint. Both
 * statements run in the transaction of the change the note reports (Sql.noted, and the backends'
 * own transactions), so the change and its message commit together or not at all. With no
 * endpoint subscribed they write nothing.
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

const subscribed = subscribedWhere('?', '?');

export const outboxSql = {
  message: `INSERT INTO webhook_messages (id, event, data, created_at)
    SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT)
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE ${subscribed})`,
  deliveries: `INSERT INTO webhook_deliveries (message_id, endpoint_id, event, status, attempts, next_attempt_at, created_at)
    SELECT CAST(? AS TEXT), id, CAST(? AS TEXT), 'pending', 0, CAST(? AS BIGINT), CAST(? AS BIGINT)
    FROM webhook_endpoints WHERE ${subscribed}`,
  /** One endpoint only, enabled or not (webhook.test): the caller asked for it by name. */
  messageTo: `INSERT INTO webhook_messages (id, event, data, created_at)
    SELECT CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT)
    WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE id = ?)`,
  deliveryTo: `INSERT INTO webhook_deliveries (message_id, endpoint_id, event, status, attempts, next_attempt_at, created_at)
    SELECT CAST(? AS TEXT), id, CAST(? AS TEXT), 'pending', 0, CAST(? AS BIGINT), CAST(? AS BIGINT)
    FROM webhook_endpoints WHERE id = ?`,
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

const insertMessage = 'INSERT INTO webhook_messages (id, event, data, created_at) VALUES (?, ?, ?, ?)';
const insertDeliveries = (n: number) =>
  `INSERT INTO webhook_deliveries (message_id, endpoint_id, event, status, attempts, next_attempt_at, created_at)
    VALUES ${Array.from({ length: n }, () => "(?, ?, ?, 'pending', 0, ?, ?)").join(', ')}`;

/** The statements that write a note for the endpoints read in its transaction (subscriptionsSql). */
export function noteRows(n: Note, subscriptions: readonly Subscription[]): Array<[string, Param[]]> {
  const ids = subscriptions.filter((s) => subscribes(s, n)).map((s) => s.id);
  if (ids.length === 0) return [];
  return [
    [insertMessage, [n.id, n.event, n.data, n.at]],
    [insertDeliveries(ids.length), ids.flatMap((id) => [n.id, id, n.event, n.at, n.at])],
  ];
}

/** The LIKE pattern that finds `event` among an endpoint's space-separated events. */
export function notePattern(event: string): string {
  return `% ${event.replaceAll('\\', '\\\\').replaceAll('%', '\\%').replaceAll('_', '\\_')} %`;
}

/** The statements that write a note, to run in the change's transaction. */
export function noteStatements(n: Note): Array<[string, Param[]]> {
  const match = [notePattern(n.event), n.inStar ? 1 : 0];
  return [
    [outboxSql.message, [n.id, n.event, n.data, n.at, ...match]],
    [outboxSql.deliveries, [n.id, n.event, n.at, n.at, ...match]],
  ];
}

/** The statements that write a note for one endpoint only. */
export function noteToStatements(n: Note, endpoint: string): Array<[string, Param[]]> {
  return [
    [outboxSql.messageTo, [n.id, n.event, n.data, n.at, endpoint]],
    [outboxSql.deliveryTo, [n.id, n.event, n.at, n.at, endpoint]],
  ];
}
