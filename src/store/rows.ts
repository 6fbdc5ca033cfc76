/** Maps rows with snake_case columns (SQLite and PostgreSQL alike) to the store's domain records. */
import type { Device, PrivacyLevel, RunSummary } from './store.ts';

export type Row = Record<string, unknown>;

export function deviceFrom(r: Row): Device {
  return {
    id: r.id as string,
    name: r.name as string,
    owner: r.owner as string,
    enrolledAt: r.enrolled_at as number,
    lastSeenAt: (r.last_seen_at as number | null) ?? null,
    revokedAt: (r.revoked_at as number | null) ?? null,
  };
}

export function summaryFrom(r: Row): RunSummary {
  return {
    device: r.device_id as string,
    id: r.id as string,
    contentType: r.content_type as string,
    privacy: r.privacy as PrivacyLevel,
    size: r.size as number,
    uploadedAt: r.uploaded_at as number,
  };
}
