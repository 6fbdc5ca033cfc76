/** What sign-in keeps: break-glass password hashes, the throttle's failures and turns, accounts, ended sessions. */
import type { Sql } from './sql.ts';
import type { SignInStore } from './store.ts';
import type { Account } from '../domain/accounts.ts';

/** Failures older than this no longer count for any address (the window is 15 minutes) and are pruned. */
const FAILURES_KEPT_MS = 3_600_000;

/** Everything sign-in and sign-out write goes through on a full disk (Sql.critical): an operator must get in to free space. */
export const signInSql = {
  passwordHash: 'SELECT hash FROM credentials WHERE username = ?',
  setPasswordHash:
    'INSERT INTO credentials (username, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (username) DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
  createPasswordHash:
    'INSERT INTO credentials (username, hash, updated_at) VALUES (?, ?, ?) ON CONFLICT (username) DO NOTHING',
  failuresSince: 'SELECT count(*) AS n FROM login_failures WHERE client = ? AND at > ?',
  recordFailure: 'INSERT INTO login_failures (client, at) VALUES (?, ?)',
  pruneFailures: 'DELETE FROM login_failures WHERE at < ?',
  clearFailures: 'DELETE FROM login_failures WHERE client = ?',
  // One upsert decides: the row is written only when free or lapsed, and RETURNING says whether it
  // was. On PostgreSQL the upsert locks the row, so of two instances exactly one sees it free.
  takeTurn: `INSERT INTO login_turns (client, holder, until) VALUES (?, ?, ?)
    ON CONFLICT (client) DO UPDATE SET holder = excluded.holder, until = excluded.until WHERE login_turns.until <= ?
    RETURNING holder`,
  releaseTurn: 'DELETE FROM login_turns WHERE client = ? AND holder = ?',
  recordSignIn:
    'INSERT INTO accounts (subject, display, last_sign_in_at) VALUES (?, ?, ?) ON CONFLICT (subject) DO UPDATE SET display = excluded.display, last_sign_in_at = excluded.last_sign_in_at',
  knownAccounts: 'SELECT subject, display, last_sign_in_at FROM accounts ORDER BY last_sign_in_at DESC LIMIT ?',
  endSession: 'INSERT INTO ended_sessions (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING',
  pruneSessions: 'DELETE FROM ended_sessions WHERE expires_at <= ?',
  sessionEnded: 'SELECT 1 AS ended FROM ended_sessions WHERE id = ?',
} as const;

export function signInStore(db: Sql): SignInStore {
  return {
    async passwordHash(username) {
      return (await db.get(signInSql.passwordHash, username))?.hash as string | undefined;
    },
    async setPasswordHash(username, hash) {
      await db.run(signInSql.setPasswordHash, username, hash, Date.now());
    },
    async createPasswordHash(username, hash) {
      return (await db.run(signInSql.createPasswordHash, username, hash, Date.now())) === 1;
    },
    async loginFailuresSince(client, since) {
      return Number((await db.get(signInSql.failuresSince, client, since))?.n);
    },
    async recordLoginFailure(client, at) {
      await db.critical(signInSql.recordFailure, client, at);
      // Pruning those of every address keeps the table small even when each failure comes from
      // another address. Not in one transaction with the insert: a prune that fails loses nothing.
      await db.critical(signInSql.pruneFailures, at - FAILURES_KEPT_MS);
    },
    async clearLoginFailures(client) {
      await db.critical(signInSql.clearFailures, client);
    },
    async takeLoginTurn(client, holder, now, until) {
      return (await db.critical(signInSql.takeTurn, client, holder, until, now)) === 1;
    },
    async releaseLoginTurn(client, holder) {
      await db.critical(signInSql.releaseTurn, client, holder);
    },
    async recordSignIn(a) {
      await db.critical(signInSql.recordSignIn, a.subject, a.display, a.lastSignInAt);
    },
    async knownAccounts(limit) {
      return (await db.all(signInSql.knownAccounts, limit)).map((r): Account => ({
        subject: r.subject as string,
        display: r.display as string,
        lastSignInAt: r.last_sign_in_at as number,
      }));
    },
    async endSession(id, expiresAt, now) {
      await db.critical(signInSql.endSession, id, expiresAt);
      await db.critical(signInSql.pruneSessions, now);
    },
    async sessionEnded(id) {
      return (await db.get(signInSql.sessionEnded, id)) !== undefined;
    },
  };
}
