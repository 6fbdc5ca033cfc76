/**
 * The list queries on request paths, named so a test can check their plans: each walks an index
 * from the cursor and stops after one page (keyset pagination: no OFFSET, nothing that grows with the table).
 */
const runColumns = 'seq, device_id, id, content_type, privacy, size, uploaded_at';

export const listQueries = {
  allDevices:
    'SELECT seq, id, name, owner, enrolled_at, last_seen_at, last_upload_at, revoked_at FROM devices WHERE seq < ? ORDER BY seq DESC LIMIT ?',
  ownDevices:
    'SELECT seq, id, name, owner, enrolled_at, last_seen_at, last_upload_at, revoked_at FROM devices WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?',
  allRuns: `SELECT ${runColumns} FROM runs WHERE seq < ? ORDER BY seq DESC LIMIT ?`,
  ownRuns: `SELECT ${runColumns} FROM runs WHERE owner = ? AND seq < ? ORDER BY seq DESC LIMIT ?`,
} as const;
