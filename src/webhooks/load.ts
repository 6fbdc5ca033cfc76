/**
 * How busy this process's event loop is with other work than the sender's, for the webhook sender
 * (docs/decisions.md, "uploads come first"): the sender shares the server's one thread, so while
 * requests keep the loop busy it sends at a minimum rate only. Busy means that over the last
 * window (at least WINDOW_MS) the loop's active time (perf_hooks' eventLoopUtilization), less the
 * time the sender itself reported (`spent`), was at least `busyShare` of the window.
 *
 * Leaving the sender's own work out matters both ways. Counted, it made a sender draining alone
 * throttle itself every other window (a drain at half speed), and under uploads the loop's share
 * hovered around the threshold, so the sender ran at full speed in windows that the uploads
 * needed. What the sender cannot time (the HTTP client's parsing, inside Node) still counts as
 * load: it errs towards uploads.
 *
 * The loop's delay was tried first and does not tell: under a saturating upload load the loop
 * serves many short callbacks and a 10 ms timer fires only 2–5 ms late.
 */
import { performance } from 'node:perf_hooks';

export interface LoadGauge {
  busy(): boolean;
  /** Milliseconds of the sender's own synchronous work, not counted as load. */
  spent(ms: number): void;
  stop(): void;
}

/** The utilization is read over windows of this length at least. */
const WINDOW_MS = 50;
export const BUSY_SHARE = 0.5;

export function eventLoopGauge(busyShare = BUSY_SHARE): LoadGauge {
  let since = performance.eventLoopUtilization();
  let readAt = performance.now();
  let own = 0;
  let last = false;
  return {
    busy() {
      const now = performance.now();
      if (now - readAt >= WINDOW_MS) {
        const current = performance.eventLoopUtilization();
        const { active, idle } = performance.eventLoopUtilization(current, since);
        last = Math.max(0, active - own) >= busyShare * (active + idle);
        since = current;
        readAt = now;
        own = 0;
      }
      return last;
    },
    spent(ms) {
      own += ms;
    },
    stop() {},
  };
}
