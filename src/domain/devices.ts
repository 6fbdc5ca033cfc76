/**
 * A device's status (docs/contract.md section 9): revoked when revoked; else stale when it has not called
 * the control API for PADDOCK_STALE_AFTER; else active. The store filters by the same rule
 * (store/devices.ts, filteredDevices).
 */
import type { LabelSelector, Labels } from './labels.ts';
import type { PrivacyLevel } from './privacy.ts';

export function deviceStatus(d: Pick<Device, 'revokedAt' | 'lastSeenAt'>, staleBefore: number): DeviceStatus {
  if (d.revokedAt !== null) return 'revoked';
  return (d.lastSeenAt ?? 0) < staleBefore ? 'stale' : 'active';
}

export interface Device {
  id: string;
  name: string;
  owner: string;
  enrolledAt: number;
  lastSeenAt: number | null;
  lastUploadAt: number | null;
  revokedAt: number | null;
  /** The subject that minted the token this device enrolled with. */
  enrolledBy: string;
  /** The token's note, or empty. */
  enrollNote: string;
  /** The highest privacy level the device may upload at (docs/contract.md section 10). */
  maxPrivacy: PrivacyLevel;
}

/**
 * A device as the console and the API read it: with its labels (docs/contract.md section 12). The
 * control path reads a Device alone, so an upload never pays for the labels.
 */
export interface LabelledDevice extends Device {
  labels: Labels;
}

/** A device's statuses, in the order the console offers them. */
export const DEVICE_STATUSES = ['active', 'stale', 'revoked'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

/** The device list's sorts; the first is the default. */
export const DEVICE_SORTS = ['newest', 'name', 'last_seen'] as const;
export type DeviceSort = (typeof DEVICE_SORTS)[number];

/** The device list's filters (docs/contract.md section 9); absent fields do not filter. */
export interface DeviceFilter {
  /** Substring of the id or the name, case-insensitive. */
  q?: string | undefined;
  owner?: string | undefined;
  status?: DeviceStatus | undefined;
  sort?: DeviceSort | undefined;
  /** Labels every device shown carries (`key=value`, or `key` with any value); at most 5. */
  labels?: readonly LabelSelector[] | undefined;
  /** Devices not seen since this instant are stale (now − PADDOCK_STALE_AFTER). */
  staleBefore: number;
}
