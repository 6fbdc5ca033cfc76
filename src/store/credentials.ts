/**
 * Device credentials (docs/contract.md section 16): the lookup of a presented credential, rotation,
 * an administrator's ask, the expiry's one audit record, and the replaced credentials kept to
 * recognise their reuse. Every statement is written once for both stores; each is one statement
 * (a conditional UPDATE where two instances may race), so none needs a transaction of its own;
 * where two follow each other, the first is the one whose loss a crash between them leaves harmless.
 */
import type { CredentialDevice, CredentialState } from '../domain/credentials.ts';
import { PENDING_CREDENTIAL_REUSED } from '../domain/devices.ts';
import { deviceFrom } from './rows.ts';
import { changed, deviceColumns } from './devices.ts';
import { IN_SCOPE, type Row, scope, type Sql } from './sql.ts';
import type { CredentialsStore } from './store.ts';

/** The credential's columns besides the device's. */
const state = `coalesce(credential_rotated_at, enrolled_at) AS credential_issued_at, credential_rotated_at,
  rotation_asked_at, previous_credential_until, credential_expired_at, credential_version`;

export const credentialsSql = {
  /**
   * The device of a presented credential: by its current one (unique), or by the one the last
   * rotation replaced while that still works (devices_previous_credential). `overlapping`: the
   * current one is presented while the replaced one is still kept, so this is its first use.
   */
  byCredential: `SELECT ${deviceColumns}, ${state}, credential_hash AS matched, 0 AS superseded,
      CASE WHEN previous_credential_hash IS NULL THEN 0 ELSE 1 END AS overlapping, previous_credential_hash AS previous
    FROM devices WHERE credential_hash = ?
    UNION ALL
    SELECT ${deviceColumns}, ${state}, previous_credential_hash, 1, 0, NULL
    FROM devices WHERE previous_credential_hash = ? AND previous_credential_until > ?`,
  /** The new credential's first use ends the replaced one's overlap, on every instance at once. */
  firstUse: `UPDATE devices SET previous_credential_hash = NULL, previous_credential_until = NULL,
      rotation_salt = NULL, credential_version = credential_version + 1
    WHERE credential_hash = ? AND previous_credential_hash IS NOT NULL RETURNING credential_version`,
  version: 'SELECT credential_version FROM devices WHERE credential_hash = ?',
  /**
   * Keyed by the credential presented: of two rotations racing with it, the first replaces it and
   * the second changes nothing (PostgreSQL checks the WHERE again on the row the first left; SQLite
   * has one writer). The replaced credential becomes the previous one, whatever was before it.
   */
  rotate: `UPDATE devices SET credential_hash = ?, previous_credential_hash = credential_hash,
      previous_credential_until = ?, rotation_salt = ?, credential_rotated_at = ?, rotation_asked_at = NULL,
      credential_expired_at = NULL, credential_version = credential_version + 1
    WHERE id = ? AND credential_hash = ? AND revoked_at IS NULL RETURNING id`,
  /**
   * Reuse is theft: the credential a rotation replaces is kept (its hash) until `keep_until`. Written
   * before the rotation and keyed like it, so that no crash between the two loses a replaced
   * credential; should the rotation then not happen, the row names a credential still current,
   * which the lookup finds first (reuse is looked for only once the lookup found nothing), and the
   * rotation that does replace it later writes its own times over it.
   */
  keepReplaced: `INSERT INTO replaced_credentials (hash, device, replaced_at, overlap_until, keep_until)
    SELECT credential_hash, id, ?, ?, ? FROM devices WHERE id = ? AND credential_hash = ? AND revoked_at IS NULL
    ON CONFLICT (hash) DO UPDATE SET replaced_at = excluded.replaced_at, overlap_until = excluded.overlap_until,
      keep_until = excluded.keep_until, reissued_at = NULL`,
  /** The first reissue of a rotation's credential: one row changes, however many ask at once. */
  reissued: 'UPDATE replaced_credentials SET reissued_at = ? WHERE hash = ? AND reissued_at IS NULL RETURNING hash',
  /** The first use of the new credential ended the replaced one's overlap at this instant. */
  overlapEnded: 'UPDATE replaced_credentials SET overlap_until = ? WHERE hash = ? AND overlap_until > ?',
  /** The device of a replaced credential still kept at `now`, by the table's primary key. */
  replaced: `SELECT r.device, r.replaced_at, r.overlap_until, d.owner, d.pending_since, d.revoked_at
    FROM replaced_credentials r JOIN devices d ON d.id = r.device WHERE r.hash = ? AND r.keep_until > ?`,
  /**
   * The reuse's one transition: a device neither pending nor revoked becomes pending, once however
   * many requests race to it; the version changes, so no instance's remembered lookup outlives it.
   */
  reused: `UPDATE devices SET pending_since = ?, pending_reason = ?, credential_version = credential_version + 1
    WHERE id = ? AND pending_since IS NULL AND revoked_at IS NULL RETURNING id`,
  /** Replaced credentials kept long enough (index replaced_credentials_keep_until). */
  endReplaced: `DELETE FROM replaced_credentials
    WHERE hash IN (SELECT hash FROM replaced_credentials WHERE keep_until <= ? ORDER BY keep_until LIMIT ?)`,
  /** The rotation that replaced `previous_credential_hash`, while that credential still works. */
  rotationOf: `SELECT rotation_salt, credential_hash FROM devices
    WHERE id = ? AND previous_credential_hash = ? AND previous_credential_until > ? AND revoked_at IS NULL`,
  ask: `UPDATE devices SET rotation_asked_at = ?, credential_version = credential_version + 1
    WHERE id = ? AND revoked_at IS NULL AND ${IN_SCOPE} RETURNING id`,
  revokedState: `SELECT revoked_at FROM devices WHERE id = ? AND ${IN_SCOPE}`,
  expired: `UPDATE devices SET credential_expired_at = ?
    WHERE id = ? AND credential_expired_at IS NULL AND revoked_at IS NULL RETURNING id`,
  ofDevice: `SELECT ${state} FROM devices WHERE id = ?`,
  /** Overlaps that have passed (index devices_overlap_until): their replaced hash and salt cleared. */
  endOverlaps: `UPDATE devices SET previous_credential_hash = NULL, previous_credential_until = NULL, rotation_salt = NULL
    WHERE seq IN (SELECT seq FROM devices WHERE previous_credential_until <= ? ORDER BY previous_credential_until LIMIT ?)`,
} as const;

/** A time column that may be NULL. */
const at = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

function stateFrom(r: Row): CredentialState {
  return {
    issuedAt: Number(r.credential_issued_at),
    rotatedAt: at(r.credential_rotated_at),
    rotationAskedAt: at(r.rotation_asked_at),
    previousUntil: at(r.previous_credential_until),
    expiredAt: at(r.credential_expired_at),
  };
}

export function credentialsStore(db: Sql): CredentialsStore {
  return {
    async deviceByCredential(hash, now) {
      const row = await db.get(credentialsSql.byCredential, hash, hash, now);
      if (!row) return undefined;
      const found: CredentialDevice = {
        ...deviceFrom(row),
        credentialHash: row.matched as string,
        credential: stateFrom(row),
        superseded: Number(row.superseded) === 1,
        version: Number(row.credential_version),
      };
      if (Number(row.overlapping) === 1) {
        const first = await db.get(credentialsSql.firstUse, hash);
        // The replaced credential's overlap ends now (a crash before this write leaves its 10 minutes).
        if (first && typeof row.previous === 'string')
          await db.run(credentialsSql.overlapEnded, now, row.previous, now);
        // Another instance may have recorded the first use a moment ago: then read the version it left.
        const used = first ?? (await db.get(credentialsSql.version, hash));
        found.version = Number(used?.credential_version ?? found.version);
        found.credential.previousUntil = null;
      }
      return found;
    },
    async rotateCredential(rotation, note) {
      const { device, replaced, hash, salt, at, until, keepUntil } = rotation;
      await db.run(credentialsSql.keepReplaced, at, until, keepUntil, device, replaced);
      const rows = await db.noted(changed(note), credentialsSql.rotate, hash, until, salt, at, device, replaced);
      return rows.length === 1;
    },
    async rotationOf(device, replaced, now) {
      const row = await db.get(credentialsSql.rotationOf, device, replaced, now);
      if (!row || typeof row.rotation_salt !== 'string') return undefined;
      return { salt: row.rotation_salt, hash: row.credential_hash as string };
    },
    async askRotation(viewer, id, at, note) {
      if ((await db.noted(changed(note), credentialsSql.ask, at, id, ...scope(viewer))).length === 1) return 'asked';
      const row = await db.get(credentialsSql.revokedState, id, ...scope(viewer));
      return row ? 'revoked' : 'unknown';
    },
    async noteCredentialExpired(device, at, note) {
      return (await db.noted(changed(note), credentialsSql.expired, at, device)).length === 1;
    },
    async deviceCredential(id) {
      const row = await db.get(credentialsSql.ofDevice, id);
      return row && stateFrom(row);
    },
    endOverlaps: (now, limit) => db.run(credentialsSql.endOverlaps, now, limit),
    async replacedCredential(hash, now) {
      const r = await db.get(credentialsSql.replaced, hash, now);
      if (!r) return undefined;
      return {
        device: r.device as string,
        owner: r.owner as string,
        replacedAt: Number(r.replaced_at),
        overlapUntil: Number(r.overlap_until),
        pendingSince: at(r.pending_since),
        revokedAt: at(r.revoked_at),
      };
    },
    async noteCredentialReissued(replaced, at, note) {
      return (await db.noted(changed(note), credentialsSql.reissued, at, replaced)).length === 1;
    },
    async noteCredentialReused(device, at, note) {
      const rows = await db.noted(changed(note), credentialsSql.reused, at, PENDING_CREDENTIAL_REUSED, device);
      return rows.length === 1;
    },
    endReplaced: (now, limit) => db.run(credentialsSql.endReplaced, now, limit),
  };
}
