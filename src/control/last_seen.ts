/**
 * Last seen (docs/contract.md section 9): every authenticated control call updates it, written at most
 * once a minute per device so that uploads stay fast. This process remembers when it last wrote
 * for each device and skips the store within the minute; the store's statement holds the same
 * rule across instances. An upload that stores a run writes last seen in its own statement.
 */
import type { Clock } from '../clock.ts';
import type { Logger } from '../log/logger.ts';
import { SEEN_EVERY_MS } from '../store/devices.ts';
import type { Store } from '../store/store.ts';
import { EVENTS } from '../events/catalogue.ts';

/**
 * Devices remembered: enough for a fleet of 100,000 devices each calling once a minute (about 10 MiB),
 * so that a busy fleet does not push out entries within their minute and turn every call into a
 * write (10,000 held requests woken at once each wrote once, as the bench of issue 35 showed).
 */
const MAX_ENTRIES = 100_000;

export interface LastSeen {
  /** The device called: write last seen unless this process did within the minute. */
  touch(device: string): void;
  /** The store wrote last seen itself (a stored upload). */
  written(device: string): void;
}

export function lastSeen(store: Pick<Store, 'touchDevice'>, clock: Clock, logger: Logger): LastSeen {
  const writes = new Map<string, number>();
  const remember = (device: string, at: number) => {
    writes.delete(device);
    // Oldest first in a Map: dropping the first entry keeps the memory bounded.
    if (writes.size >= MAX_ENTRIES) writes.delete(writes.keys().next().value as string);
    writes.set(device, at);
  };
  return {
    touch(device) {
      const now = clock.now();
      const last = writes.get(device);
      if (last !== undefined && now - last < SEEN_EVERY_MS) return;
      remember(device, now);
      // Off the request path: the answer does not wait for it, and a failure only loses a timestamp.
      store.touchDevice(device, now).catch((err: unknown) => {
        writes.delete(device);
        logger.emit(EVENTS.deviceLastSeenFailed, {
          device,
          error: err instanceof Error ? err.message : 'unknown',
        });
      });
    },
    written(device) {
      remember(device, clock.now());
    },
  };
}
