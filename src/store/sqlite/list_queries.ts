/**
 * The list queries on request paths, named so a test can check their plans: each walks an index
 * from the cursor and stops after one page (keyset pagination: no OFFSET, nothing that grows with the table).
 * Their rows come back as arrays (Db.allArrays); the mappers below read them in SELECT order.
 */
import type { Device, PrivacyLevel, RunSummary } from '../store.ts';

const runColumns = 'seq, device_id, id, content_type, privacy, size, uploaded_at';
const deviceColumns = 'seq, id, name, owner, enrolled_at, last_seen_at, last_upload_at, revoked_at';

export const listQueries = {
  allDevices: `SELECT ${deviceColumns} FROM devices WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
  ownDevices: `SELECT ${deviceColumns} FROM devices WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
  allRuns: `SELECT ${runColumns} FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
  ownRuns: `SELECT ${runColumns} FROM runs WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
} as const;

/** Every list row starts with its sequence number, the keyset cursor. */
export const seqOf = (row: unknown[]): unknown => row[0];

export function runSummaryFromArray(r: unknown[]): RunSummary {
  return {
    device: r[1] as string,
    id: r[2] as string,
    contentType: r[3] as string,
    privacy: r[4] as PrivacyLevel,
    size: r[5] as number,
    uploadedAt: r[6] as number,
  };
}

export function deviceFromArray(r: unknown[]): Device & { lastUploadAt: number | null } {
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
