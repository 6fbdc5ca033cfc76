/**
 * How busy this process's event loop is, for the webhook sender (docs/decisions.md, "uploads come
 * first"): the sender shares the server's one thread, so while requests keep the loop busy it
 * sends at a minimum rate only. Busy means the loop's utilization over the last window (the share
 * of the time it was not waiting, perf_hooks' eventLoopUtilization) is at least `busyShare`.
 *
 * Its delay was tried first and does not tell: under a saturating upload load the loop serves
 * many short callbacks and a 10 ms timer fires only 2–5 ms late (monitorEventLoopDelay did not
 * even see the loop held up by synchronous work). The sender's own work counts too: while it
 * drains alone at full speed the loop is busy, it slows for a window, the loop is idle, it goes
 * on at full speed; under uploads the loop stays busy while it waits, so it stays slow.
 */
import { performance } from 'node:perf_hooks';

export interface LoadGauge {
  busy(): boolean;
  stop(): void;
}

/** The utilization is read over windows of this length at least. */
const WINDOW_MS = 100;
export const BUSY_SHARE = 0.8;

export function eventLoopGauge(busyShare = BUSY_SHARE): LoadGauge {
  let since = performance.eventLoopUtilization();
  let readAt = performance.now();
  let last = false;
  return {
    busy() {
      const now = performance.now();
      if (now - readAt >= WINDOW_MS) {
        const current = performance.eventLoopUtilization();
        last = performance.eventLoopUtilization(current, since).utilization >= busyShare;
        since = current;
        readAt = now;
      }
      return last;
    },
    stop() {},
  };
}
