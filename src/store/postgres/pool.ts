/**
 * The connection pool and how its failures surface: a lost or refused connection becomes a
 * StoreError (answered 503 by the router) and the pool reconnects by itself on the next query.
 */
import pg from 'pg';
import { StoreError } from '../errors.ts';

/** int8 (ids, sequences, times in ms) as numbers: every value Paddock stores fits in 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

export function createPool(url: string, schema?: string): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    types,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
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
  '57P01',
  '57P02',
  '57P03',
  '53300',
]);

/** True when the error means "the database is not reachable now", as opposed to a bad query. */
export function isConnectionError(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  if (e.code && (CONNECTION_CODES.has(e.code) || e.code.startsWith('08'))) return true;
  return /Connection terminated|timeout exceeded when trying to connect|connection is closed|Client has encountered a connection error/i.test(
    e.message ?? '',
  );
}

export function unavailable(err: unknown): unknown {
  return isConnectionError(err) ? new StoreError('unavailable', 'the database is unreachable', err) : err;
}
