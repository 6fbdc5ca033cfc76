/** Maps rows with snake_case columns (SQLite and PostgreSQL alike) to the store's domain records. */
import type { Row } from './sql.ts';
import type { Device } from '../domain/devices.ts';
import type { Page } from '../domain/paging.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { RunSummary } from '../domain/runs.ts';

export function deviceFrom(r: Row): Device {
  return {
    id: r.id as string,
    name: r.name as string,
    owner: r.owner as string,
    enrolledAt: r.enrolled_at as number,
    lastSeenAt: (r.last_seen_at as number | null) ?? null,
    lastUploadAt: (r.last_upload_at as number | null) ?? null,
    revokedAt: (r.revoked_at as number | null) ?? null,
    enrolledBy: r.enrolled_by as string,
    enrollNote: r.enroll_note as string,
    maxPrivacy: r.max_privacy as PrivacyLevel,
    pendingSince: r.pending_since === null || r.pending_since === undefined ? null : Number(r.pending_since),
    pendingReason: r.pending_since === null || r.pending_since === undefined ? null : pendingReason(r.pending_reason),
    enrolledFrom: (r.enrolled_from as string | null | undefined) ?? null,
  };
}

/** A stored pending_reason, read only while the device waits (approval and revocation leave it). */
export function pendingReason(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

export function summaryFrom(r: Row): RunSummary {
  return {
    device: r.device_id as string,
    id: r.id as string,
    contentType: r.content_type as string,
    privacy: r.privacy as PrivacyLevel,
    size: r.size as number,
    uploadedAt: r.uploaded_at as number,
    flagged: Number(r.flagged) === 1,
  };
}

const DAY_MS = 86_400_000;

/** The first millisecond of the oldest day a `days`-day chart ending today shows. */
export function chartStart(days: number, now: number): number {
  return (Math.floor(now / DAY_MS) - days + 1) * DAY_MS;
}

/** Spreads `(day, n)` rows (day = ms / 86,400,000) over the chart's days, oldest first. */
export function perDay(rows: Row[], days: number, now: number): number[] {
  const first = Math.floor(now / DAY_MS) - days + 1;
  const counts = new Array<number>(days).fill(0);
  for (const r of rows) {
    const i = Number(r.day) - first;
    if (i >= 0 && i < days) counts[i] = Number(r.n);
  }
  return counts;
}

/** The keyset cursor as a number: `before` absent means "from the newest". */
export function cursor(before: string | undefined): number {
  return before === undefined ? Number.MAX_SAFE_INTEGER : Number(before);
}

/**
 * One page from `limit + 1` rows read as arrays whose first column is the sequence number (the
 * keyset cursor): the extra row only says that an older page exists.
 */
export function page<T>(rows: unknown[][], limit: number, map: (row: unknown[]) => T): Page<T> {
  const items = rows.slice(0, limit).map(map);
  const last = rows[limit - 1];
  return rows.length > limit && last !== undefined ? { items, next: String(last[0]) } : { items };
}
