/**
 * Which device a credential belongs to, remembered for a minute, so an upload costs one store
 * round trip (the upload itself) rather than two. Safe because the mapping never changes and
 * nothing else is taken from it: the upload's own statement checks, atomically, that the device
 * is still enrolled and not revoked, and a refusal there forgets the entry.
 */
import type { Clock } from '../clock.ts';
import type { Store } from '../store/store.ts';
import type { Device } from '../domain/devices.ts';

type Found = Device & { credentialHash: string };

const TTL_MS = 60_000;
const MAX_ENTRIES = 10_000;

export interface CredentialCache {
  /** The device of a credential hash, from memory when looked up within the last minute and not revoked then. */
  lookup(hash: string): Promise<Found | undefined>;
  forget(hash: string): void;
}

export function credentialCache(store: Pick<Store, 'deviceByCredential'>, clock: Clock): CredentialCache {
  const entries = new Map<string, { device: Found; at: number }>();
  return {
    async lookup(hash) {
      const now = clock.now();
      const hit = entries.get(hash);
      if (hit && now - hit.at < TTL_MS) return hit.device;
      const device = await store.deviceByCredential(hash);
      if (device && device.revokedAt === null) {
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
  return { lookup: (hash) => store.deviceByCredential(hash), forget: () => undefined };
}
