/**
 * Wake-ups across instances with PostgreSQL's own LISTEN/NOTIFY (docs/contract.md section 15): a
 * created collection is announced on the channel `paddock_requests` with its id; every instance
 * holds one connection of its own that LISTENs, opened at the first subscriber and opened again
 * after it is lost (a notification sent meanwhile is lost: the held requests' timer covers it).
 */
import pg from 'pg';
import type { Sql } from '../sql.ts';
import type { Wakeups } from '../wakeups.ts';
import { connectionConfig, type PgOptions } from './pool.ts';

export const CHANNEL = 'paddock_requests';
const RECONNECT_MS = 1_000;

export function pgWakeups(url: string, opts: PgOptions, sql: Sql): Wakeups {
  const listeners = new Set<(collection: string) => void>();
  let client: pg.Client | undefined;
  let connecting: Promise<void> | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  function connect(): Promise<void> {
    connecting ??= (async () => {
      const c = new pg.Client(connectionConfig(url, opts));
      c.on('notification', (n) => {
        if (n.channel !== CHANNEL || n.payload === undefined) return;
        for (const listener of listeners) listener(n.payload);
      });
      c.on('error', () => lost(c));
      c.on('end', () => lost(c));
      try {
        await c.connect();
        await c.query(`LISTEN ${CHANNEL}`);
        client = c;
      } catch {
        lost(c);
      }
    })().finally(() => (connecting = undefined));
    return connecting;
  }

  function lost(c: pg.Client) {
    if (client === c) client = undefined;
    c.end().catch(() => undefined);
    if (closed || listeners.size === 0 || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      if (!client && !closed) void connect();
    }, RECONNECT_MS);
    retry.unref();
  }

  return {
    async notify(collection) {
      // After the creating transaction committed; lost with the process if it dies between the two.
      await sql.get('SELECT pg_notify(?, ?)', CHANNEL, collection).catch(() => undefined);
    },
    subscribe(listener) {
      listeners.add(listener);
      const ready = client ? Promise.resolve() : connect();
      return { ready, stop: () => void listeners.delete(listener) };
    },
    async close() {
      closed = true;
      listeners.clear();
      if (retry) clearTimeout(retry);
      await connecting;
      await client?.end().catch(() => undefined);
      client = undefined;
    },
  };
}
