/**
 * What sign-in keeps: break-glass password hashes, the throttle's failures and turns, accounts
 * (with the admin flag of their latest sign-in and whether they are disabled), recorded sessions
 * and ended sessions (docs/contract.md sections 5 and 14).
 */
import type { Sql } from './sql.ts';
import type { SignInStore } from './store.ts';
import type { Account, AccountState } from '../domain/accounts.ts';
import {
  newSessionPublicId,
  type NewSessionRecord,
  SESSION_SEEN_EVERY_MS,
  type SessionRecord,
} from '../domain/sessions.ts';

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
  recordSignIn: `INSERT INTO accounts (subject, display, last_sign_in_at, admin) VALUES (?, ?, ?, ?)
    ON CONFLICT (subject) DO UPDATE SET display = excluded.display, last_sign_in_at = excluded.last_sign_in_at,
      admin = excluded.admin`,
  knownAccounts: 'SELECT subject, display, last_sign_in_at FROM accounts ORDER BY last_sign_in_at DESC LIMIT ?',
  accountState: 'SELECT subject, display, last_sign_in_at, admin, disabled_at FROM accounts WHERE subject = ?',
  disableAccount: 'UPDATE accounts SET disabled_at = ? WHERE subject = ? AND disabled_at IS NULL',
  enableAccount: 'UPDATE accounts SET disabled_at = NULL WHERE subject = ? AND disabled_at IS NOT NULL',
  endSession: 'INSERT INTO ended_sessions (id, expires_at) VALUES (?, ?) ON CONFLICT (id) DO NOTHING',
  markSessionEnded: 'UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL',
  pruneSessions: 'DELETE FROM ended_sessions WHERE expires_at <= ?',
  pruneSessionRows: 'DELETE FROM sessions WHERE expires_at <= ?',
  sessionEnded: 'SELECT 1 AS ended FROM ended_sessions WHERE id = ?',
  recordSession: `INSERT INTO sessions (id, public_id, subject, started_at, last_seen_at, expires_at, client, browser)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  /** The guard's one read per request: ended, last seen (null: no row yet), its account disabled. */
  sessionState: `SELECT (SELECT 1 FROM ended_sessions WHERE id = ?) AS ended,
    (SELECT last_seen_at FROM sessions WHERE id = ?) AS last_seen,
    (SELECT disabled_at FROM accounts WHERE subject = ?) AS disabled`,
  seeSession: 'UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at <= ?',
  /** An account's live sessions, newest first (index sessions_subject). */
  sessionsOf: `SELECT public_id, subject, started_at, last_seen_at, expires_at, client, browser, ended_at, id
    FROM sessions WHERE subject = ? AND ended_at IS NULL AND expires_at > ? ORDER BY started_at DESC, public_id LIMIT ?`,
  // Ending by public id or for a whole account: the ids go to ended_sessions first (what refuses
  // them), then the rows are marked. `id <> ?` keeps the asking session when it ends the others.
  endByPublicId: `INSERT INTO ended_sessions (id, expires_at) SELECT id, expires_at FROM sessions
    WHERE subject = ? AND public_id = ? AND ended_at IS NULL AND expires_at > ? ON CONFLICT (id) DO NOTHING`,
  markByPublicId:
    'UPDATE sessions SET ended_at = ? WHERE subject = ? AND public_id = ? AND ended_at IS NULL AND expires_at > ?',
  endAllOf: `INSERT INTO ended_sessions (id, expires_at) SELECT id, expires_at FROM sessions
    WHERE subject = ? AND id <> ? AND ended_at IS NULL AND expires_at > ? ON CONFLICT (id) DO NOTHING`,
  markAllOf: 'UPDATE sessions SET ended_at = ? WHERE subject = ? AND id <> ? AND ended_at IS NULL AND expires_at > ?',
} as const;

/** How many of an account's sessions the pages list; more live at once would be odd. */
export const SESSIONS_SHOWN = 200;

export function signInStore(db: Sql): SignInStore {
  /** Records a session (once: a second call for the same id changes nothing); expired rows are pruned first. */
  async function recordSession(s: NewSessionRecord): Promise<void> {
    await db.critical(signInSql.pruneSessionRows, s.startedAt);
    await db.critical(
      signInSql.recordSession,
      s.id,
      newSessionPublicId(),
      s.subject,
      s.startedAt,
      s.startedAt,
      s.expiresAt,
      s.client,
      s.browser,
    );
  }

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
      await db.critical(signInSql.recordSignIn, a.subject, a.display, a.lastSignInAt, a.admin ? 1 : 0);
    },
    async accountState(subject) {
      const r = await db.get(signInSql.accountState, subject);
      if (r === undefined) return undefined;
      return {
        subject: r.subject as string,
        display: r.display as string,
        lastSignInAt: Number(r.last_sign_in_at),
        admin: Number(r.admin) === 1,
        disabledAt: r.disabled_at === null ? null : Number(r.disabled_at),
      } satisfies AccountState;
    },
    async setAccountDisabled(subject, at) {
      return at === null
        ? (await db.critical(signInSql.enableAccount, subject)) === 1
        : (await db.critical(signInSql.disableAccount, at, subject)) === 1;
    },
    recordSession,
    async seeSession(s, now) {
      const state = await db.get(signInSql.sessionState, s.id, s.id, s.subject);
      if (state?.ended != null || state?.disabled != null) return 'ended';
      if (state?.last_seen == null) {
        // A session from before sessions were recorded (or whose row was lost): recorded now.
        await recordSession({ ...s, startedAt: now });
      } else if (now - Number(state.last_seen) >= SESSION_SEEN_EVERY_MS) {
        await db.run(signInSql.seeSession, now, s.id, now - SESSION_SEEN_EVERY_MS);
      }
      return 'live';
    },
    async sessionsOf(subject, now, currentId) {
      return (await db.all(signInSql.sessionsOf, subject, now, SESSIONS_SHOWN)).map((r) => ({
        ...sessionFrom(r),
        current: r.id === currentId,
      }));
    },
    async endSessionOf(subject, publicId, now) {
      await db.critical(signInSql.endByPublicId, subject, publicId, now);
      return (await db.critical(signInSql.markByPublicId, now, subject, publicId, now)) === 1;
    },
    async endSessionsOf(subject, now, except = '') {
      await db.critical(signInSql.endAllOf, subject, except, now);
      return db.critical(signInSql.markAllOf, now, subject, except, now);
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
      await db.critical(signInSql.markSessionEnded, now, id);
      await db.critical(signInSql.pruneSessions, now);
    },
    async sessionEnded(id) {
      return (await db.get(signInSql.sessionEnded, id)) !== undefined;
    },
  };
}

function sessionFrom(r: Record<string, unknown>): SessionRecord {
  return {
    publicId: r.public_id as string,
    subject: r.subject as string,
    startedAt: Number(r.started_at),
    lastSeenAt: Number(r.last_seen_at),
    expiresAt: Number(r.expires_at),
    client: r.client as string,
    browser: r.browser as string,
    endedAt: r.ended_at === null ? null : Number(r.ended_at),
  };
}
