/** A clock the test moves: `sleep` records the delay and advances time at once. */
import type { Clock } from '../../src/clock.ts';

export interface FakeClock extends Clock {
  sleeps: number[];
  advance(ms: number): void;
}

export function fakeClock(start = Date.UTC(2026, 10, 22, 12, 0, 0)): FakeClock {
  let now = start;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    async sleep(ms) {
      sleeps.push(ms);
      now += ms;
    },
    advance(ms) {
      now += ms;
    },
  };
}
