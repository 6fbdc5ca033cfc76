/**
 * What sign-in keeps: break-glass password hashes, the throttle's failures and turns, accounts
 * (with the admin flag of their latest sign-in and whether they are disabled), recorded sessions,
 * keyed by the hash of their cookie's id, and logout tokens seen (docs/contract.md sections 5, 14 and 17).
 */
import type { Sql } from './sql.ts';
import type { SignInStore } from './store.ts';
import type { Account, AccountState } from '../domain/accounts.ts';
import {
  newSessionPublicId,
  sessionKey,
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
  /** Signing out: the row is marked ended (sessions are keyed by sessionKey of the cookie's id). */
  endSession: 'UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL',
  pruneSessionRows: 'DELETE FROM sessions WHERE expires_at <= ?',
  recordSession: `INSERT INTO sessions (id, public_id, subject, admin, sid, started_at, last_seen_at, expires_at, client, browser)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
  /** The guard's one read per request: the session's row, and whether its account is disabled. */
  sessionState: `SELECT s.subject, s.admin, s.expires_at, s.last_seen_at, s.ended_at,
    (SELECT disabled_at FROM accounts WHERE subject = s.subject) AS disabled
    FROM sessions s WHERE s.id = ?`,
  seeSession: 'UPDATE sessions SET last_seen_at = ? WHERE id = ? AND last_seen_at <= ?',
  /** An account's live sessions, newest first (index sessions_subject). */
  sessionsOf: `SELECT public_id, subject, started_at, last_seen_at, expires_at, client, browser, ended_at, id
    FROM sessions WHERE subject = ? AND ended_at IS NULL AND expires_at > ? ORDER BY started_at DESC, public_id LIMIT ?`,
  endByPublicId:
    'UPDATE sessions SET ended_at = ? WHERE subject = ? AND public_id = ? AND ended_at IS NULL AND expires_at > ?',
  // `id <> ?` keeps the asking session when it ends the others.
  endAllOf: 'UPDATE sessions SET ended_at = ? WHERE subject = ? AND id <> ? AND ended_at IS NULL AND expires_at > ?',
  // Back-channel logout (docs/contract.md section 17): by the provider's sid (index sessions_sid),
  // narrowed to the account when the token names it too.
  liveBySid: `SELECT DISTINCT subject FROM sessions WHERE sid = ? AND ended_at IS NULL AND expires_at > ?`,
  endBySid: 'UPDATE sessions SET ended_at = ? WHERE sid = ? AND subject = ? AND ended_at IS NULL AND expires_at > ?',
  // A logout token's jti, kept until its exp (docs/contract.md section 17): one row, or a replay.
  noteLogoutToken: 'INSERT INTO logout_tokens_seen (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING',
  pruneLogoutTokens: 'DELETE FROM logout_tokens_seen WHERE expires_at <= ?',
  // The throttle's account-wide count, and the addresses the break-glass account signed in from.
  accountFailuresSince: 'SELECT count(*) AS n FROM login_failures WHERE at > ?',
  knownClient: 'SELECT 1 AS known FROM login_known_clients WHERE client = ? AND at > ?',
  rememberClient:
    'INSERT INTO login_known_clients (client, at) VALUES (?, ?) ON CONFLICT (client) DO UPDATE SET at = excluded.at',
  pruneKnownClients: 'DELETE FROM login_known_clients WHERE at <= ?',
  // Reserves the account's next slot: the later of now and the slot after the last one taken, moved
  // on by the interval; nothing when that start would be past the latest one waited for.
  // RETURNING gives the slot's end: its start is that less the interval.
  reserveAccountSlot: `INSERT INTO login_account_slots (name, next_at) VALUES (?, ?)
    ON CONFLICT (name) DO UPDATE SET next_at =
      CASE WHEN login_account_slots.next_at > ? THEN login_account_slots.next_at ELSE ? END + ?
    WHERE login_account_slots.next_at <= ?
    RETURNING next_at`,
} as const;

/** How many of an account's sessions the pages list; more live at once would be odd. */
export const SESSIONS_SHOWN = 200;

export function signInStore(db: Sql): SignInStore {
  /** Records a session (once: a second call for the same id changes nothing); expired rows are pruned first. */
  async function recordSession(s: NewSessionRecord): Promise<void> {
    await db.critical(signInSql.pruneSessionRows, s.startedAt);
    await db.critical(
      signInSql.recordSession,
      sessionKey(s.id),
      newSessionPublicId(),
      s.subject,
      s.admin ? 1 : 0,
      s.sid ?? null,
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
      const key = sessionKey(s.id);
      const row = await db.get(signInSql.sessionState, key);
      // Only a session recorded at sign-in is live, and only as it was recorded: a cookie forged
      // with a leaked session key names no recorded id, or claims another account or flag.
      if (row === undefined || row.ended_at !== null || row.disabled != null) return 'ended';
      if (row.subject !== s.subject || (Number(row.admin) === 1) !== s.admin) return 'ended';
      if (Number(row.expires_at) !== s.expiresAt || !(s.expiresAt > now)) return 'ended';
      if (now - Number(row.last_seen_at) >= SESSION_SEEN_EVERY_MS) {
        await db.run(signInSql.seeSession, now, key, now - SESSION_SEEN_EVERY_MS);
      }
      return 'live';
    },
    async sessionsOf(subject, now, currentId) {
      return (await db.all(signInSql.sessionsOf, subject, now, SESSIONS_SHOWN)).map((r) => ({
        ...sessionFrom(r),
        current: currentId !== undefined && r.id === sessionKey(currentId),
      }));
    },
    async endSessionOf(subject, publicId, now) {
      return (await db.critical(signInSql.endByPublicId, now, subject, publicId, now)) === 1;
    },
    async endSessionsOf(subject, now, except) {
      return db.critical(signInSql.endAllOf, now, subject, except === undefined ? '' : sessionKey(except), now);
    },
    async endSessionsBySid(sid, subject, now) {
      const subjects =
        subject === undefined
          ? (await db.all(signInSql.liveBySid, sid, now)).map((r) => r.subject as string)
          : [subject];
      const ended: Array<{ subject: string; sessions: number }> = [];
      for (const who of subjects) {
        const n = await db.critical(signInSql.endBySid, now, sid, who, now);
        if (n > 0) ended.push({ subject: who, sessions: n });
      }
      return ended;
    },
    async noteLogoutToken(jti, expiresAt, now) {
      await db.critical(signInSql.pruneLogoutTokens, now);
      return (await db.critical(signInSql.noteLogoutToken, jti, expiresAt)) === 1;
    },
    async accountLoginFailuresSince(since) {
      return Number((await db.get(signInSql.accountFailuresSince, since))?.n);
    },
    async knownLoginClient(client, since) {
      return (await db.get(signInSql.knownClient, client, since)) !== undefined;
    },
    async reserveLoginSlot(name, now, interval, latestStart) {
      const rows = await db.noted(
        () => [],
        signInSql.reserveAccountSlot,
        name,
        now + interval,
        now,
        now,
        interval,
        latestStart,
      );
      const end = rows[0]?.next_at;
      return end === undefined ? undefined : Number(end) - interval;
    },
    async rememberLoginClient(client, at, forgetBefore) {
      await db.critical(signInSql.rememberClient, client, at);
      await db.critical(signInSql.pruneKnownClients, forgetBefore);
    },
    async knownAccounts(limit) {
      return (await db.all(signInSql.knownAccounts, limit)).map((r): Account => ({
        subject: r.subject as string,
        display: r.display as string,
        lastSignInAt: r.last_sign_in_at as number,
      }));
    },
    async endSession(id, now) {
      await db.critical(signInSql.endSession, now, sessionKey(id));
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
