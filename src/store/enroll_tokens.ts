/**
 * Enrollment tokens: minting, the outstanding list and revocation (docs/contract.md section 9). A token is
 * stored only as its hash; the tokens page addresses it by a random public id. Consuming a use is
 * part of enrollment, in devices.ts.
 */
import { LONGEST_TOKEN_LIFETIME_MS, newTokenPublicId, type EnrollToken } from '../domain/enroll_tokens.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import { page } from './rows.ts';
import { type Row, rowsYielded, type Sql } from './sql.ts';
import { tokenLabelsFrom, tokenLabelsJson } from './labels.ts';
import { emptyLabels } from '../domain/labels.ts';
import type { EnrollTokensStore } from './store.ts';

/** The columns of an EnrollToken, public id first (the list's keyset cursor), as tokenFrom reads them. */
const columns =
  'public_id, owner, created_by, created_at, expires_at, uses, uses_left, name, note, max_privacy, revoked_at, labels, approval';

/**
 * Outstanding: uses left, not revoked (the partial index enroll_tokens_outstanding holds just
 * these), not expired, and minted within the longest lifetime, so the scan stops there instead of
 * walking every expired token ever minted.
 */
const outstanding = 'uses_left > 0 AND revoked_at IS NULL AND expires_at > ? AND created_at > ?';

/** The list queries on request paths, named so that test/store/query_plans.test.ts checks their plans. */
export const enrollTokenLists = {
  outstanding: `SELECT ${columns} FROM enroll_tokens WHERE ${outstanding}
    ORDER BY created_at DESC, public_id DESC LIMIT ?`,
  /** The later pages: after the row whose public id is the cursor. */
  outstandingAfter: `SELECT ${columns} FROM enroll_tokens WHERE ${outstanding}
    AND (created_at, public_id) < (SELECT created_at, public_id FROM enroll_tokens WHERE public_id = ?)
    ORDER BY created_at DESC, public_id DESC LIMIT ?`,
  /**
   * The list's total (docs/contract.md section 22): its rows without their columns or order, from
   * the same partial index (which holds the outstanding tokens and those expired unused).
   */
  outstandingCount: `SELECT 1 FROM enroll_tokens WHERE ${outstanding} LIMIT ?`,
} as const;

export const enrollTokensSql = {
  create: `INSERT INTO enroll_tokens
    (hash, public_id, owner, created_by, created_at, expires_at, uses, uses_left, name, note, max_privacy, labels,
      approval)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING public_id`,
  /** Only an outstanding token is revoked: a used-up or expired one is already of no use. */
  revoke: `UPDATE enroll_tokens SET revoked_at = ?
    WHERE public_id = ? AND revoked_at IS NULL AND uses_left > 0 AND expires_at > ? RETURNING public_id`,
} as const;

export function enrollTokensStore(db: Sql): EnrollTokensStore {
  return {
    async createEnrollToken(t, note) {
      const token: EnrollToken = {
        publicId: newTokenPublicId(),
        owner: t.owner,
        createdBy: t.createdBy,
        createdAt: t.createdAt,
        expiresAt: t.expiresAt,
        uses: t.uses ?? 1,
        usesLeft: t.uses ?? 1,
        name: t.name ?? '',
        note: t.note ?? '',
        maxPrivacy: t.maxPrivacy ?? 'full',
        revokedAt: null,
        labels: t.labels ?? emptyLabels(),
        approval: t.approval ?? 'automatic',
      };
      await db.noted(
        () => (note ? [note(token)] : []),
        enrollTokensSql.create,
        t.hash,
        token.publicId,
        token.owner,
        token.createdBy,
        token.createdAt,
        token.expiresAt,
        token.uses,
        token.usesLeft,
        token.name,
        token.note,
        token.maxPrivacy,
        tokenLabelsJson(token.labels),
        token.approval,
      );
      return token;
    },
    async outstandingEnrollTokens(req, now) {
      const since = now - LONGEST_TOKEN_LIFETIME_MS;
      const rows =
        req.before === undefined
          ? await db.arrays(enrollTokenLists.outstanding, now, since, req.limit + 1)
          : await db.arrays(enrollTokenLists.outstandingAfter, now, since, req.before, req.limit + 1);
      return page(rows, req.limit, tokenFrom);
    },
    async countOutstandingEnrollTokens(now, upTo) {
      return rowsYielded(db, enrollTokenLists.outstandingCount, [now, now - LONGEST_TOKEN_LIFETIME_MS, upTo + 1]);
    },
    async revokeEnrollToken(publicId, at, note) {
      const notes = (rows: Row[]) => (note && rows.length > 0 ? [note] : []);
      return (await db.noted(notes, enrollTokensSql.revoke, at, publicId, at)).length === 1;
    },
  };
}

function tokenFrom(r: unknown[]): EnrollToken {
  return {
    publicId: r[0] as string,
    owner: r[1] as string,
    createdBy: r[2] as string,
    createdAt: Number(r[3]),
    expiresAt: Number(r[4]),
    uses: Number(r[5]),
    usesLeft: Number(r[6]),
    name: r[7] as string,
    note: r[8] as string,
    maxPrivacy: r[9] as PrivacyLevel,
    revokedAt: r[10] === null ? null : Number(r[10]),
    labels: tokenLabelsFrom(r[11]),
    approval: r[12] === 'required' ? 'required' : 'automatic',
  };
}
