/**
 * Emitting an event of the catalogue, and subscribing to them. Handlers hold an Emitter (the
 * `logger` of their dependencies) and call `emit(EVENTS.deviceRevoked, { … })`; the bus hands each
 * event to its subscribers in order: the log, the audit trail, the metrics (and later the webhook
 * deliveries).
 *
 * `emit` resolves once every subscriber has taken the event. The audit trail takes an event as
 * soon as its queue has room; when the queue is full it answers with a promise, so an action that
 * awaits its emit waits for room instead of losing its record (docs/decisions.md, issue 22).
 */
import { EVENTS, type AnyEvent, type Catalogue, type EventKey, type Fields, type FieldsOf } from './catalogue.ts';

export interface Emitter {
  emit<E extends AnyEvent>(event: E, fields: FieldsOf<E['fields']>): Promise<void>;
}

/** Hears every event emitted; a promise it returns holds the emitter until it settles (backpressure). */
export interface Subscriber {
  hear(event: AnyEvent, fields: Fields): void | Promise<void>;
}

const DONE: Promise<void> = Promise.resolve();

/** Emits to each subscriber in order; the result settles once the last one has taken the event. */
export function eventBus(...subscribers: Subscriber[]): Emitter {
  return {
    emit(event, fields) {
      const waits: Array<Promise<void>> = [];
      for (const subscriber of subscribers) {
        const taken = subscriber.hear(event, fields as Fields);
        if (taken) waits.push(taken);
      }
      return waits.length === 0 ? DONE : Promise.all(waits).then(() => undefined);
    },
  };
}

/** A handler for each event it names, by the catalogue's key, with that event's typed fields. */
export type Handlers = { [K in EventKey]?: (fields: FieldsOf<Catalogue[K]['fields']>) => void | Promise<void> };

/** A subscriber to some events only: `subscribe({ deviceRevoked: (fields) => … })`. */
export function subscribe(handlers: Handlers): Subscriber {
  const byName = new Map<string, (fields: Fields) => void | Promise<void>>();
  for (const [key, handler] of Object.entries(handlers))
    if (handler) byName.set(EVENTS[key as EventKey].name, handler as (fields: Fields) => void | Promise<void>);
  return {
    hear(event, fields) {
      return byName.get(event.name)?.(fields);
    },
  };
}
