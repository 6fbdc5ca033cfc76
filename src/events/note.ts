/**
 * A note for the webhook outbox (docs/contract.md section 13): an event of the catalogue that
 * webhooks may subscribe to, with its fields, its time and the message id it keeps on every
 * attempt. The store writes it in the transaction of the change it reports (store/outbox.ts), so
 * no crash between the change and its delivery loses it.
 */
import { randomHex } from '../crypto/random.ts';
import type { AnyEvent, FieldsOf } from './catalogue.ts';

export interface Note {
  /** The Standard Webhooks `webhook-id`: `msg_` and 128 bits, of which 80 random (messageId). */
  readonly id: string;
  readonly event: string;
  /** The delivery's `data`, as JSON. */
  readonly data: string;
  readonly at: number;
  /** Whether `*` subscribes to it (run.stored is only sent when named). */
  readonly inStar: boolean;
}

/**
 * `msg_`, the time in milliseconds (48 bits) and 80 random bits, in hex: unique as a random id is,
 * and ordered by time, so the outbox's indexes on it (the messages' key, the deliveries' message)
 * grow at one end. With 128 random bits each upload wrote to pages all over those indexes, and
 * the uploads slowed as the outbox grew (docs/decisions.md).
 */
export function messageId(at: number): string {
  return `msg_${Math.max(0, Math.floor(at)).toString(16).padStart(12, '0').slice(-12)}${randomHex(10)}`;
}

/** The note of an event for the outbox; the same fields the log and the audit trail hear. */
export function note<E extends AnyEvent>(event: E, fields: FieldsOf<E['fields']>, at: number): Note {
  return {
    id: messageId(at),
    event: event.name,
    data: JSON.stringify(fields),
    at,
    inStar: event.webhook === 'all',
  };
}

/** A delivery's body: `{"type", "timestamp", "data"}`, the same bytes on every attempt. */
export function messageBody(event: string, data: string, at: number): string {
  return `{"type":${JSON.stringify(event)},"timestamp":${JSON.stringify(new Date(at).toISOString())},"data":${data}}`;
}
