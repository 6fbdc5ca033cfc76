/**
 * Held requests (docs/contract.md section 15): a device that asks for its requests with `wait` and
 * has none is held here until a collection reaches it, its wait passes, or the server drains. A
 * collection created on any instance sharing the store wakes it (store.onRequestsCreated: in this
 * process on SQLite, LISTEN/NOTIFY on PostgreSQL); a re-check on a timer covers a notification lost
 * while an instance reconnected. Waking is batched: the held devices are asked of the store
 * WAKE_SLICE at a time, a few slices at once, in three statements a slice (which were revoked, their
 * open requests, those marked delivered); a slice's answers go out while the next is read, so ten
 * thousand woken devices cost the store sixty statements, not thirty thousand. A device holds at
 * most two requests: a third answers the oldest at once, so a device that reconnects after its NAT
 * dropped the old connection is never locked out, and one credential cannot hold thousands of
 * connections.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Clock } from '../clock.ts';
import {
  type DeviceRequest,
  MAX_HELD_PER_DEVICE,
  MAX_OPEN_PER_DEVICE,
  WAKE_SLICE,
  type WokenDevice,
} from '../domain/collections.ts';
import type { Store } from '../store/store.ts';

/**
 * How a held request ended: requests reached it (with them, already marked delivered), its device
 * was revoked, its wait passed, a newer one took its place, or the server drains.
 */
export type HoldEnd =
  | { how: 'woken'; requests: DeviceRequest[]; credentialVersion: number }
  | { how: 'revoked' | 'timeout' | 'displaced' | 'drained' };

export interface RequestHub {
  /** Holds a request of `device` for at most `ms`. */
  hold(device: string, ms: number): Promise<HoldEnd>;
  /** Requests held now (the metrics' gauge). */
  held(): number;
  /** Answers every held request at once, and every later one without holding it (SIGTERM). */
  drain(): void;
  stop(): void;
}

/** How many slices of held devices are read from the store at once (a pool has 10 connections). */
const WAKE_WORKERS = 4;

/** How often held devices are checked for requests whose notification was lost. */
export const RECHECK_MS = 5_000;

interface Waiter {
  end: (how: HoldEnd) => void;
}

export function requestHub(
  store: Pick<Store, 'onRequestsCreated' | 'wakeRequests'>,
  clock: Clock,
  onError: (err: Error) => void = () => undefined,
): RequestHub {
  const waiting = new Map<string, Waiter[]>();
  let count = 0;
  let draining = false;
  let checking: Promise<void> | undefined;
  let again = false;

  /** Wakes the held devices that have a pending request; one check at a time, another after it if asked meanwhile. */
  function check(): void {
    if (checking) {
      again = true;
      return;
    }
    checking = (async () => {
      do {
        again = false;
        const devices = [...waiting.keys()];
        const slices: string[][] = [];
        for (let i = 0; i < devices.length; i += WAKE_SLICE) slices.push(devices.slice(i, i + WAKE_SLICE));
        // A few slices in flight at once: on PostgreSQL each is a few round trips, and the answers
        // of one are written while the next is read.
        let next = 0;
        const worker = async () => {
          for (let slice = slices[next++]; slice !== undefined; slice = slices[next++]) {
            const woken = await store.wakeRequests(slice, clock.now(), MAX_OPEN_PER_DEVICE);
            for (const [device, found] of woken) wake(device, ended(found));
            if (woken.size > 0) await nextTurn();
          }
        };
        await Promise.all(Array.from({ length: Math.min(WAKE_WORKERS, slices.length) }, worker));
      } while (again);
    })()
      .catch((err: unknown) => onError(err as Error))
      .finally(() => (checking = undefined));
  }

  function wake(device: string, how: HoldEnd): void {
    // Every held request of the device gets the same requests: delivering one twice is harmless.
    // A copy: each waiter leaves the list as it ends.
    for (const w of [...(waiting.get(device) ?? [])]) w.end(how);
  }

  const subscription = store.onRequestsCreated(() => check());
  const timer = setInterval(() => {
    if (waiting.size > 0) check();
  }, RECHECK_MS);
  timer.unref();

  return {
    hold(device, ms) {
      if (draining) return Promise.resolve(DRAINED);
      return new Promise<HoldEnd>((resolve) => {
        const list = waiting.get(device) ?? [];
        waiting.set(device, list);
        const waiter: Waiter = {
          end(how) {
            const at = list.indexOf(waiter);
            if (at === -1) return;
            list.splice(at, 1);
            if (list.length === 0) waiting.delete(device);
            count--;
            clearTimeout(timeout);
            resolve(how);
          },
        };
        const timeout = setTimeout(() => waiter.end(TIMEOUT), ms);
        list.push(waiter);
        count++;
        // The oldest beyond the limit is answered at once (an empty list).
        while (list.length > MAX_HELD_PER_DEVICE) list[0]?.end(DISPLACED);
      });
    },
    held: () => count,
    drain() {
      draining = true;
      for (const device of [...waiting.keys()]) wake(device, DRAINED);
    },
    stop() {
      clearInterval(timer);
      subscription.stop();
      for (const device of [...waiting.keys()]) wake(device, DRAINED);
    },
  };
}

const TIMEOUT: HoldEnd = { how: 'timeout' };
const DISPLACED: HoldEnd = { how: 'displaced' };
const DRAINED: HoldEnd = { how: 'drained' };
const REVOKED: HoldEnd = { how: 'revoked' };

function ended(found: WokenDevice): HoldEnd {
  return found === 'revoked' ? REVOKED : { how: 'woken', ...found };
}
