/**
 * A device's status (CONTRACT section 9): revoked when revoked; else stale when it has not called
 * the control API for PADDOCK_STALE_AFTER; else active. The store filters by the same rule
 * (store/devices.ts, filteredDevices).
 */
import type { Device, DeviceStatus } from '../store/store.ts';

export function deviceStatus(d: Pick<Device, 'revokedAt' | 'lastSeenAt'>, staleBefore: number): DeviceStatus {
  if (d.revokedAt !== null) return 'revoked';
  return (d.lastSeenAt ?? 0) < staleBefore ? 'stale' : 'active';
}
