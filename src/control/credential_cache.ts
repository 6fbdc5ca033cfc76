/**
 * Which device a credential belongs to, remembered for a minute, so an upload costs one store
 * round trip (the upload itself) rather than two. Safe because whatever is taken from a remembered
 * lookup is checked again by the upload's own statement, atomically: that the device is still
 * enrolled, not revoked, and its credential_version unchanged (docs/contract.md section 16: a
 * rotation, the new credential's first use, an administrator's ask and a replaced credential's
 * reuse, which makes the device pending, each change it, on whichever instance they happen). A refusal there forgets the entry. The credential a rotation replaced is
 * remembered no longer than its overlap.
 */
import type { Store } from '../store/store.ts';
import { type CredentialDevice, credentialWorks } from '../domain/credentials.ts';

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface CredentialCache {
  /**
   * The device of a credential hash at `now`, from memory when looked up within the last minute
   * and neither revoked nor pending then.
   */
  lookup(hash: string, now: number): Promise<CredentialDevice | undefined>;
  forget(hash: string): void;
}

export function credentialCache(store: Pick<Store, 'deviceByCredential'>): CredentialCache {
  const entries = new Map<string, { device: CredentialDevice; at: number }>();
  return {
    async lookup(hash, now) {
      const hit = entries.get(hash);
      if (hit && now - hit.at < TTL_MS && credentialWorks(hit.device, now)) return hit.device;
      const device = await store.deviceByCredential(hash, now);
      // A device that waits for approval is asked about every time, so its approval counts at once.
      if (device && device.revokedAt === null && device.pendingSince === null) {
        // Oldest first in a Map: dropping the first entry keeps the cache bounded.
        if (entries.size >= MAX_ENTRIES) entries.delete(entries.keys().next().value as string);
        entries.set(hash, { device, at: now });
      } else entries.delete(hash);
      return device;
    },
    forget(hash) {
      entries.delete(hash);
    },
  };
}

/** The same lookup without memory: every call asks the store (routes that must refuse a revoked device at once). */
export function freshCredentials(store: Pick<Store, 'deviceByCredential'>): CredentialCache {
  return { lookup: (hash, now) => store.deviceByCredential(hash, now), forget: () => undefined };
}
