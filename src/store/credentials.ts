/**
 * Device credentials (docs/contract.md section 16): the lookup of a presented credential, rotation,
 * an administrator's ask, and the expiry's one audit record. Every statement is written once for
 * both stores; each is one statement (a conditional UPDATE where two instances may race), so none
 * needs a transaction of its own.
 */
import type { CredentialDevice, CredentialState } from '../domain/credentials.ts';
import { deviceFrom } from './rows.ts';
import { changed, deviceColumns } from './devices.ts';
import { type Row, scope, type Sql } from './sql.ts';
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
      CASE WHEN previous_credential_hash IS NULL THEN 0 ELSE 1 END AS overlapping
    FROM devices WHERE credential_hash = ?
    UNION ALL
    SELECT ${deviceColumns}, ${state}, previous_credential_hash, 1, 0
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
  /** The rotation that replaced `previous_credential_hash`, while that credential still works. */
  rotationOf: `SELECT rotation_salt, credential_hash FROM devices
    WHERE id = ? AND previous_credential_hash = ? AND previous_credential_until > ? AND revoked_at IS NULL`,
  ask: `UPDATE devices SET rotation_asked_at = ?, credential_version = credential_version + 1
    WHERE id = ? AND revoked_at IS NULL AND (? OR owner = ?) RETURNING id`,
  revokedState: 'SELECT revoked_at FROM devices WHERE id = ? AND (? OR owner = ?)',
  expired: `UPDATE devices SET credential_expired_at = ?
    WHERE id = ? AND credential_expired_at IS NULL AND revoked_at IS NULL RETURNING id`,
  ofDevice: `SELECT ${state} FROM devices WHERE id = ?`,
  /** Overlaps that have passed (index devices_overlap_until): their replaced hash and salt cleared. */
  endOverlaps: `UPDATE devices SET previous_credential_hash = NULL, previous_credential_until = NULL, rotation_salt = NULL
    WHERE seq IN (SELECT seq FROM devices WHERE previous_credential_until <= ? ORDER BY previous_credential_until LIMIT ?)`,
} as const;

function stateFrom(r: Row): CredentialState {
  const at = (v: unknown) => (v === null || v === undefined ? null : Number(v));
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
        // Another instance may have recorded the first use a moment ago: then read the version it left.
        const used = (await db.get(credentialsSql.firstUse, hash)) ?? (await db.get(credentialsSql.version, hash));
        found.version = Number(used?.credential_version ?? found.version);
        found.credential.previousUntil = null;
      }
      return found;
    },
    async rotateCredential(rotation, note) {
      const { device, replaced, hash, salt, at, until } = rotation;
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
  };
}
