/**
 * The connection settings, the pool, and how connection failures surface: a lost, refused or
 * silent connection becomes a StoreError (answered 503 by the router) and the pool reconnects by
 * itself on the next query.
 */
import pg from 'pg';
import { StoreError } from '../errors.ts';

export interface PgOptions {
  /** A schema of its own (tests): created at open and put first on the search path. */
  schema?: string | undefined;
  /** A query without an answer for this long fails with 503 (a database behind a dead network never refuses). */
  queryTimeoutMs?: number | undefined;
  /** Connections kept at most (PADDOCK_DATABASE_POOL). */
  poolSize?: number | undefined;
}

/** int8 (ids, sequences, times in ms) as numbers: every value Paddock stores fits in 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** What every connection uses, pooled or not. */
export function connectionConfig(url: string, opts: PgOptions): pg.ClientConfig {
  return {
    connectionString: url,
    connectionTimeoutMillis: 5_000,
    types,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  };
}

export function createPool(url: string, opts: PgOptions): pg.Pool {
  const pool = new pg.Pool({
    ...connectionConfig(url, opts),
    max: opts.poolSize ?? 10,
    idleTimeoutMillis: 30_000,
    query_timeout: opts.queryTimeoutMs ?? 15_000,
  });
  // An idle client whose server went away emits 'error'; without a listener that would end the process.
  pool.on('error', () => undefined);
  return pool;
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01', // admin_shutdown: the server is stopping or a backend was terminated
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: starting up or shutting down
  '53300', // too_many_connections
]);

/** True when the error means "the database is not reachable now", as opposed to a bad query. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  if (e?.code && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection is closed|Client has encountered a connection error|not queryable/i.test(
    e?.message ?? '',
  );
}

export function unavailable(err: unknown): unknown {
  return isConnectionError(err) ? new StoreError('unavailable', 'the database is unreachable', err) : err;
}
