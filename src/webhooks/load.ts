/**
 * How busy this process's event loop is, for the webhook sender (docs/decisions.md, "uploads come
 * first"): the sender shares the server's one thread, so while requests keep the loop busy it
 * sends at a minimum rate only. Busy means the loop's mean delay over the last window (how late a
 * 10 ms timer fires) is at least `busyMs`. (perf_hooks.monitorEventLoopDelay was tried first: it
 * did not see the loop held up by synchronous work, which is what a burst of requests does.)
 */
export interface LoadGauge {
  busy(): boolean;
  stop(): void;
}

/** How often the loop's delay is sampled. */
const TICK_MS = 10;
/** The delay is read over windows of this length at least. */
const WINDOW_MS = 100;
export const BUSY_MS = 5;

export function eventLoopGauge(busyMs = BUSY_MS): LoadGauge {
  let sum = 0;
  let count = 0;
  let tickAt = performance.now();
  // A timer's lateness is the loop's delay: how long a request that arrived would have waited.
  const ticker = setInterval(() => {
    const now = performance.now();
    sum += Math.max(0, now - tickAt - TICK_MS);
    count++;
    tickAt = now;
  }, TICK_MS);
  ticker.unref();
  let readAt = performance.now();
  let last = false;
  return {
    busy() {
      const now = performance.now();
      if (now - readAt >= WINDOW_MS && count > 0) {
        last = sum / count >= busyMs;
        sum = 0;
        count = 0;
        readAt = now;
      }
      return last;
    },
    stop() {
      clearInterval(ticker);
    },
  };
}
