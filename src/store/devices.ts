/**
 * Enrollment tokens and devices. enrollDevice needs a transaction, so each backend writes it in
 * its own devices.ts, with the statements below.
 */
import { cursor, deviceFrom, page } from './rows.ts';
import { type Param, type Row, scope, type Sql } from './sql.ts';
import type { Device, DevicesStore, EnrollInput } from './store.ts';

/** The columns of a Device, in the order deviceFromArray reads them after the cursor. */
const columns = 'id, name, owner, enrolled_at, last_seen_at, last_upload_at, revoked_at';

/** The list queries on request paths, named so that test/store/query_plans.test.ts checks their plans. */
export const deviceLists = {
  allDevices: `SELECT seq, ${columns} FROM devices WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
  ownDevices: `SELECT seq, ${columns} FROM devices WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
} as const;

export const devicesSql = {
  createToken: 'INSERT INTO enroll_tokens (hash, owner, created_by, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
  /** The conditional UPDATE is the single-use check: only one enrollment can set used_at. */
  consumeToken:
    'UPDATE enroll_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING owner',
  insertDevice: `INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?)
    RETURNING ${columns}`,
  byCredential: `SELECT ${columns}, credential_hash FROM devices WHERE credential_hash = ?`,
  visible: `SELECT ${columns} FROM devices WHERE id = ? AND (? OR owner = ?)`,
  revoke: 'UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND (? OR owner = ?)',
} as const;

export function devicesStore(db: Sql): Omit<DevicesStore, 'enrollDevice'> {
  return {
    async createEnrollToken(t) {
      await db.run(devicesSql.createToken, t.hash, t.owner, t.createdBy, t.createdAt, t.expiresAt);
    },
    async deviceByCredential(hash) {
      const row = await db.get(devicesSql.byCredential, hash);
      return row && { ...deviceFrom(row), credentialHash: row.credential_hash as string };
    },
    async deviceVisibleTo(viewer, id) {
      const row = await db.get(devicesSql.visible, id, ...scope(viewer));
      return row && deviceFrom(row);
    },
    async devicesVisibleTo(viewer, req) {
      const rows = viewer.admin
        ? await db.arrays(deviceLists.allDevices, cursor(req.before), req.limit + 1)
        : await db.arrays(deviceLists.ownDevices, viewer.subject, cursor(req.before), req.limit + 1);
      return page(rows, req.limit, deviceFromArray);
    },
    async revokeDevice(viewer, id, at) {
      return (await db.critical(devicesSql.revoke, at, id, ...scope(viewer))) === 1;
    },
  };
}

/** The arguments of devicesSql.insertDevice once the token named the owner. */
export function insertDeviceArgs(input: EnrollInput, owner: string): Param[] {
  return [input.deviceId, input.name, owner, input.credentialHash, input.now, input.now];
}

/** The device an enrollment created, from the row insertDevice returns. */
export function enrolled(row: Row | undefined): Device | undefined {
  return row && deviceFrom(row);
}

function deviceFromArray(r: unknown[]): Device & { lastUploadAt: number | null } {
  return {
    id: r[1] as string,
    name: r[2] as string,
    owner: r[3] as string,
    enrolledAt: r[4] as number,
    lastSeenAt: (r[5] as number | null) ?? null,
    lastUploadAt: (r[6] as number | null) ?? null,
    revokedAt: (r[7] as number | null) ?? null,
  };
}
