/**
 * Personal access tokens (docs/contract.md section 11): creation, an account's list, revocation, the
 * lookup by hash for the API, and the last use. A token is stored only as its hash.
 */
import { timingSafeEqual } from 'node:crypto';
import { newAccessTokenPublicId, type AccessToken, type LiveAccessToken } from '../domain/access_tokens.ts';
import { cursor, page } from './rows.ts';
import type { Sql } from './sql.ts';
import type { AccessTokensStore } from './store.ts';

/** The columns of an AccessToken, in the order tokenFrom reads them after the seq cursor. */
const columns =
  'public_id, subject, admin, name, created_at, expires_at, last_used_at, last_used_client, revoked_at, scope';

/** The queries on request paths, named so that test/store/access_token_plans.test.ts checks their plans. */
export const accessTokenLists = {
  /** One account's tokens, newest first, before the cursor's seq (index access_tokens_subject_seq). */
  ofSubject: `SELECT seq, ${columns} FROM access_tokens WHERE subject = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  /**
   * The API's lookup (unique index access_tokens_hash), with its account as it stands now (its
   * primary key): the hash is compared again in constant time.
   */
  byHash: `SELECT t.seq, ${columns
    .split(', ')
    .map((c) => `t.${c}`)
    .join(', ')}, t.hash, a.admin, a.disabled_at, a.last_sign_in_at
    FROM access_tokens t LEFT JOIN accounts a ON a.subject = t.subject WHERE t.hash = ?`,
} as const;

/** Last use is written at most this often per token, so API calls stay cheap. */
export const USED_EVERY_MS = 60_000;

export const accessTokensSql = {
  create: `INSERT INTO access_tokens (public_id, subject, admin, name, hash, created_at, expires_at, scope)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  /** Only the account's own tokens: an admin too revokes only its own here. */
  revoke: 'UPDATE access_tokens SET revoked_at = ? WHERE public_id = ? AND subject = ? AND revoked_at IS NULL',
  /** At most once a minute, and at once from another client address (which the API audits). */
  touch: `UPDATE access_tokens SET last_used_at = ?, last_used_client = ?
    WHERE public_id = ? AND (last_used_at IS NULL OR last_used_at < ? OR last_used_client IS NULL
      OR last_used_client <> ?)`,
} as const;

export function accessTokensStore(db: Sql): AccessTokensStore {
  return {
    async createAccessToken(t) {
      const token: AccessToken = {
        publicId: newAccessTokenPublicId(),
        subject: t.subject,
        admin: t.admin,
        scope: t.scope,
        name: t.name,
        createdAt: t.createdAt,
        expiresAt: t.expiresAt,
        lastUsedAt: null,
        lastUsedClient: null,
        revokedAt: null,
      };
      await db.run(
        accessTokensSql.create,
        token.publicId,
        token.subject,
        token.admin ? 1 : 0,
        token.name,
        t.hash,
        token.createdAt,
        token.expiresAt,
        token.scope,
      );
      return token;
    },
    async accessTokensOf(subject, req) {
      const rows = await db.arrays(accessTokenLists.ofSubject, subject, cursor(req.before), req.limit + 1);
      return page(rows, req.limit, tokenFrom);
    },
    async revokeAccessToken(subject, publicId, at) {
      return (await db.critical(accessTokensSql.revoke, at, publicId, subject)) === 1;
    },
    async accessTokenByHash(hash, now): Promise<LiveAccessToken | undefined> {
      const rows = await db.arrays(accessTokenLists.byHash, hash);
      const row = rows[0];
      if (row === undefined) return undefined;
      // The index found the row by equality; comparing again in constant time keeps what the
      // comparison takes from depending on how much of the hash matched.
      const stored = Buffer.from(String(row[11]));
      const given = Buffer.from(hash);
      if (stored.length !== given.length || !timingSafeEqual(stored, given)) return undefined;
      const token = tokenFrom(row);
      if (token.revokedAt !== null || token.expiresAt <= now) return undefined;
      const account =
        row[14] === null || row[14] === undefined
          ? null
          : {
              admin: Number(row[12]) === 1,
              disabledAt: row[13] === null ? null : Number(row[13]),
              lastSignInAt: Number(row[14]),
            };
      return { ...token, account };
    },
    async touchAccessToken(publicId, at, client) {
      return (await db.run(accessTokensSql.touch, at, client, publicId, at - USED_EVERY_MS, client)) === 1;
    },
  };
}

/** A row read as an array: seq first (the cursor), then the columns above. */
function tokenFrom(r: unknown[]): AccessToken {
  const time = (v: unknown) => (v === null ? null : Number(v));
  return {
    publicId: r[1] as string,
    subject: r[2] as string,
    admin: Number(r[3]) === 1,
    name: r[4] as string,
    createdAt: Number(r[5]),
    expiresAt: Number(r[6]),
    lastUsedAt: time(r[7]),
    lastUsedClient: (r[8] as string | null) ?? null,
    revokedAt: time(r[9]),
    scope: r[10] === 'read' || r[10] === 'scim' ? r[10] : 'write',
  };
}
