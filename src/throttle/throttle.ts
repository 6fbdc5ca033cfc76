/**
 * The break-glass sign-in throttle of docs/contract.md section 5. The delay before an attempt's answer is
 * min(2^(f-3), 30) seconds once f, the failures recorded for the client address in the last
 * 15 minutes, reaches 3. Attempts from one address (an IPv6 client: its /64) are answered one at a
 * time, in arrival order, so parallel connections cannot multiply guesses. Many addresses cannot
 * either: the account's failures from all of them are counted too, and once there are 10 in the
 * window, attempts from addresses the account has not signed in from take turns on one
 * account-wide schedule (accountIntervalMs), so the real administrator is never held back at an
 * address they use (docs/decisions.md, "The break-glass throttle counts the account too").
 * State lives in the store, shared by instances: the failures, the address's turn, the account's
 * schedule and the known addresses, so that instances behind one load balancer agree.
 */
import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Store } from '../store/store.ts';
import { throttleKey } from './throttle_key.ts';

export interface Throttle {
  /**
   * Runs one sign-in attempt for `client`: waits for the client's earlier attempts (here, then for
   * its turn among all instances), sleeps the current delay, runs `check`, and records its
   * outcome. Returns what `check` returned, or 'busy' when too many attempts from this client
   * are already waiting or the turn did not come within two leases.
   */
  attempt(client: string, check: () => Promise<boolean>): Promise<boolean | 'busy'>;
}

const WINDOW_MS = 15 * 60 * 1000;
const MAX_DELAY_S = 30;
/** Beyond this many queued attempts per address, new ones are refused rather than held in memory. */
const MAX_QUEUED = 32;
/** A turn outlasts the longest delay plus a password hash; the turn of a crashed instance lapses after it. */
const TURN_LEASE_MS = 60_000;
/** How often an attempt asks again while another instance has the address's turn. */
const TURN_POLL_MS = 100;

/** Below this many failures of the account in the window, other addresses are not slowed. */
const ACCOUNT_FREE_FAILURES = 10;
const ACCOUNT_MAX_INTERVAL_S = 30;
/** An attempt waits at most this long for its slot on the account's schedule; past it, 'busy' at once. */
const ACCOUNT_MAX_WAIT_MS = 30_000;
/** A successful sign-in makes its address known for this long: it skips the account's schedule. */
export const KNOWN_CLIENT_MS = 30 * 24 * 3600 * 1000;
const ACCOUNT_SCHEDULE = 'break-glass';

/**
 * The spacing in milliseconds between attempts from unknown addresses, for `failures` of the
 * account from every address in the window: none below 10, then doubling from 1 s up to 30 s.
 */
export function accountIntervalMs(failures: number): number {
  if (failures < ACCOUNT_FREE_FAILURES) return 0;
  return Math.min(2 ** (failures - ACCOUNT_FREE_FAILURES), ACCOUNT_MAX_INTERVAL_S) * 1000;
}

/** The delay in milliseconds for `failures` recent failures. */
export function throttleDelayMs(failures: number): number {
  if (failures < 3) return 0;
  return Math.min(2 ** (failures - 3), MAX_DELAY_S) * 1000;
}

/** `onDelay` hears each attempt's delay in milliseconds, 0 included (the metrics' histogram). */
export function storeThrottle(store: Store, clock: Clock, onDelay?: (ms: number) => void): Throttle {
  const queues = new Map<string, { tail: Promise<unknown>; waiting: number; refusing: number }>();

  /**
   * How long an attempt from `client` waits on the account's schedule: 0 from a known address or
   * while the account has few failures; 'busy' when its slot would be too far off (none is taken).
   */
  async function accountWait(client: string): Promise<number | 'busy'> {
    const now = clock.now();
    const interval = accountIntervalMs(await store.accountLoginFailuresSince(now - WINDOW_MS));
    if (interval === 0 || (await store.knownLoginClient(client, now - KNOWN_CLIENT_MS))) return 0;
    const start = await store.reserveLoginSlot(ACCOUNT_SCHEDULE, now, interval, now + ACCOUNT_MAX_WAIT_MS);
    return start === undefined ? 'busy' : Math.max(0, start - now);
  }

  async function run(client: string, check: () => Promise<boolean>): Promise<boolean | 'busy'> {
    const holder = randomBytes(12).toString('base64url');
    const gaveUpAt = clock.now() + 2 * TURN_LEASE_MS;
    while (!(await store.takeLoginTurn(client, holder, clock.now(), clock.now() + TURN_LEASE_MS))) {
      // Other instances kept the turn for longer than any attempt takes: refuse rather than hold the request.
      if (clock.now() >= gaveUpAt) return 'busy';
      await clock.sleep(TURN_POLL_MS);
    }
    try {
      const failures = await store.loginFailuresSince(client, clock.now() - WINDOW_MS);
      const waitForAccount = await accountWait(client);
      // Refused, but not sooner than the address's own delay would answer.
      const delay = Math.max(throttleDelayMs(failures), waitForAccount === 'busy' ? 0 : waitForAccount);
      onDelay?.(delay);
      if (delay > 0) await clock.sleep(delay);
      if (waitForAccount === 'busy') return 'busy';
      const ok = await check();
      if (ok) {
        await store.clearLoginFailures(client);
        await store.rememberLoginClient(client, clock.now(), clock.now() - KNOWN_CLIENT_MS);
      } else await store.recordLoginFailure(client, clock.now());
      return ok;
    } finally {
      // Should the store be gone, the turn lapses by itself.
      await store.releaseLoginTurn(client, holder).catch(() => undefined);
    }
  }

  /** The delay an attempt from `client` would sleep now (the longest, should the store be away). */
  async function currentDelay(client: string): Promise<number> {
    try {
      return throttleDelayMs(await store.loginFailuresSince(client, clock.now() - WINDOW_MS));
    } catch {
      return MAX_DELAY_S * 1000;
    }
  }

  return {
    attempt: function throttledAttempt(address, check) {
      const client = throttleKey(address);
      const queue = queues.get(client) ?? { tail: Promise.resolve(), waiting: 0, refusing: 0 };
      // Refused, but not sooner than an attempt would be answered: the delay is slept first, by
      // at most as many refusals as may queue; beyond those, a refusal is answered at once.
      if (queue.waiting >= MAX_QUEUED) {
        if (queue.refusing >= MAX_QUEUED) return Promise.resolve('busy');
        queue.refusing++;
        return currentDelay(client)
          .then(async (ms) => {
            if (ms > 0) await clock.sleep(ms);
            return 'busy' as const;
          })
          .finally(() => queue.refusing--);
      }
      queue.waiting++;
      queues.set(client, queue);
      const result = queue.tail.then(() => run(client, check));
      queue.tail = result
        .catch(() => undefined)
        .finally(() => {
          if (--queue.waiting === 0 && queues.get(client) === queue) queues.delete(client);
        });
      return result;
    },
  };
}

/** Thrown by a semaphore whose waiting list is full. */
export class SlotsBusy extends Error {
  constructor() {
    super('too many tasks are waiting');
  }
}

/**
 * Runs at most `limit` tasks at once (at most two password hashes are computed at once per
 * process), with at most `maxWaiting` more waiting; beyond that a task is refused with SlotsBusy,
 * so attempts from many addresses at once cannot hold unbounded memory.
 */
export function semaphore(limit: number, maxWaiting = Infinity): <T>(task: () => Promise<T>) => Promise<T> {
  let active = 0;
  const waiters: Array<() => void> = [];
  return async function limited(task) {
    // A finishing task hands its slot straight to the next waiter, so `active` never exceeds `limit`.
    if (active >= limit) {
      if (waiters.length >= maxWaiting) throw new SlotsBusy();
      await new Promise<void>((resolve) => waiters.push(resolve));
    } else active++;
    try {
      return await task();
    } finally {
      const next = waiters.shift();
      if (next) next();
      else active--;
    }
  };
}
