/**
 * How a new collection reaches the devices held waiting for a request (docs/contract.md section 15):
 * `notify` says a collection was created, `subscribe` hears it. One process on SQLite hears its own;
 * PostgreSQL carries it to every instance (postgres/listen.ts). A notification may be lost (an
 * instance reconnecting to PostgreSQL): the held requests re-check on a timer as well.
 */
export interface Wakeups {
  notify(collection: string): Promise<void>;
  subscribe(listener: (collection: string) => void): Subscription;
  close(): Promise<void>;
}

/** A listener's subscription: `ready` once it hears what is created from then on (or gave up trying). */
export interface Subscription {
  ready: Promise<void>;
  stop(): void;
}

/** The wake-ups of one process (SQLite): listeners are called after the creating call returns. */
export function localWakeups(): Wakeups {
  const listeners = new Set<(collection: string) => void>();
  return {
    async notify(collection) {
      for (const listener of listeners) queueMicrotask(() => listener(collection));
    },
    subscribe(listener) {
      listeners.add(listener);
      return { ready: Promise.resolve(), stop: () => void listeners.delete(listener) };
    },
    async close() {
      listeners.clear();
    },
  };
}
