/**
 * How long the watch waits after an error (docs/contract.md section 15): 1 s doubling to 60 s, each
 * wait a random half to whole of it, so that a fleet cut off at once does not come back at once; a
 * server's Retry-After (at most 60 s) when it asks for longer.
 */
import { MAX_RETRY_AFTER_S } from './client.ts';

const FIRST_MS = 1_000;
const LONGEST_MS = 60_000;

/** The wait after the `failures`-th error in a row (1 for the first). */
export function retryDelay(failures: number, retryAfterS: number | undefined, random: () => number = Math.random) {
  const base = Math.min(LONGEST_MS, FIRST_MS * 2 ** Math.max(0, failures - 1));
  const asked = Math.min(retryAfterS ?? 0, MAX_RETRY_AFTER_S) * 1000;
  return Math.max(asked, base * (0.5 + random() / 2));
}

/** Waits `ms`, or less when the signal stops the client first; never rejects. */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
