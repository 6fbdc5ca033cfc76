/**
 * A device's status (docs/contract.md sections 9 and 16): revoked when revoked; else pending while it
 * waits for an administrator's approval; else stale when it has not called the control API for
 * PADDOCK_STALE_AFTER; else active. The store filters by the same rule (store/devices.ts,
 * deviceConditions).
 */
import type { LabelSelector, Labels } from './labels.ts';
import type { FactSelector, Facts } from './facts.ts';
import type { PrivacyLevel } from './privacy.ts';

export function deviceStatus(
  d: Pick<Device, 'revokedAt' | 'lastSeenAt' | 'pendingSince'>,
  staleBefore: number,
): DeviceStatus {
  if (d.revokedAt !== null) return 'revoked';
  if (d.pendingSince !== null) return 'pending';
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
  /**
   * While it waits for an administrator's approval (docs/contract.md section 16), since when (its
   * enrollment); null once approved, for a device whose token needed none, and once revoked.
   */
  pendingSince: number | null;
  /**
   * Why it waits, when not since its enrollment: PENDING_CREDENTIAL_REUSED (docs/contract.md section
   * 16, reuse is theft). Null for a device that waits since its enrollment, and for one that does not wait.
   */
  pendingReason: string | null;
  /**
   * The client address it enrolled from, as the server saw it (http/client_address.ts; IPv4 or
   * IPv6), shown while it waits for approval (docs/contract.md section 22); null for a device
   * enrolled before it was kept.
   */
  enrolledFrom: string | null;
}

/** The reason a device waits after a credential a rotation replaced was presented again (docs/contract.md section 16). */
export const PENDING_CREDENTIAL_REUSED = 'credential reused';

/**
 * A device as the console and the API read it: with its labels (docs/contract.md section 12). The
 * control path reads a Device alone, so an upload never pays for the labels.
 */
export interface LabelledDevice extends Device {
  labels: Labels;
  /** What the device last reported about itself (docs/contract.md section 16); empty when never. */
  facts: Facts;
  /** When it last reported its facts; null when never. */
  factsReportedAt: number | null;
}

/** A device's statuses, in the order the console offers them. */
export const DEVICE_STATUSES = ['active', 'stale', 'pending', 'revoked'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];
/** The statuses as a sentence says them: `active, stale, pending or revoked`. */
export const DEVICE_STATUSES_TEXT = `${DEVICE_STATUSES.slice(0, -1).join(', ')} or ${DEVICE_STATUSES.at(-1) ?? ''}`;

/**
 * The device list's sorts; the first is the default. `last_seen_oldest` puts the devices silent
 * longest first (docs/contract.md section 22); a device never seen counts as seen at time 0, so it
 * is the oldest of all (and last of `last_seen`).
 */
export const DEVICE_SORTS = ['newest', 'name', 'last_seen', 'last_seen_oldest'] as const;
export type DeviceSort = (typeof DEVICE_SORTS)[number];
/** The sorts as a sentence says them: `newest, name, last_seen or last_seen_oldest`. */
export const DEVICE_SORTS_TEXT = `${DEVICE_SORTS.slice(0, -1).join(', ')} or ${DEVICE_SORTS.at(-1) ?? ''}`;

/**
 * The windows of the device list's `seen=` filter (docs/contract.md section 22): seen within one of
 * them, or with `not:` not seen within it (silent devices).
 */
export const SEEN_WINDOWS = { '5m': 5 * 60_000, '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type SeenWindow = keyof typeof SEEN_WINDOWS;
export const SEEN_VALUES = [
  ...(Object.keys(SEEN_WINDOWS) as SeenWindow[]),
  ...(Object.keys(SEEN_WINDOWS) as SeenWindow[]).map((w) => `not:${w}` as const),
] as const;
export type SeenValue = SeenWindow | `not:${SeenWindow}`;
/** The values as a sentence says them. */
export const SEEN_VALUES_TEXT = `${SEEN_VALUES.slice(0, -1).join(', ')} or ${SEEN_VALUES.at(-1) ?? ''}`;

/**
 * A `seen=` value as the store filters by it at `now`: last seen at or after `since`, or (`not:`)
 * before `before`. A device never seen counts as seen at time 0: never within any window.
 */
export function seenRange(value: SeenValue, now: number): DeviceSeen {
  const silent = value.startsWith('not:');
  const window = SEEN_WINDOWS[(silent ? value.slice(4) : value) as SeenWindow];
  return silent ? { before: now - window } : { since: now - window };
}

export type DeviceSeen = { since: number; before?: undefined } | { before: number; since?: undefined };

/**
 * Whether a device is online (docs/contract.md section 22: it holds a request or was seen within
 * PADDOCK_ONLINE_WITHIN). The setting is at least 3 minutes, so the first follows from the second on
 * every instance sharing the store, without asking the instance that holds the request: a hold
 * begins with a call that writes last seen unless it was written in the last minute (by this
 * process, which the store's own one-minute rule may have skipped: two minutes at most, see
 * control/last_seen.ts), and lasts at most 60 s (docs/contract.md section 15).
 */
export function isOnline(d: Pick<Device, 'revokedAt' | 'pendingSince' | 'lastSeenAt'>, onlineSince: number): boolean {
  return d.revokedAt === null && d.pendingSince === null && d.lastSeenAt !== null && d.lastSeenAt >= onlineSince;
}

/** The device list's filters (docs/contract.md section 9); absent fields do not filter. */
export interface DeviceFilter {
  /** Substring of the id or the name, case-insensitive. */
  q?: string | undefined;
  owner?: string | undefined;
  /** Only devices whose owner is a disabled account (docs/contract.md section 19). */
  ownerDisabled?: boolean | undefined;
  status?: DeviceStatus | undefined;
  sort?: DeviceSort | undefined;
  /** Labels every device shown carries (`key=value`, or `key` with any value); at most 5. */
  labels?: readonly LabelSelector[] | undefined;
  /** Facts every device shown reported (`key=value`, exact); at most 5. */
  facts?: readonly FactSelector[] | undefined;
  /** Devices not seen since this instant are stale (now − PADDOCK_STALE_AFTER). */
  staleBefore: number;
  /** Last seen within a window, or not (the `seen=` filter, seenRange). */
  seen?: DeviceSeen | undefined;
}
