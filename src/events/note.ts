/**
 * A note for the webhook outbox (docs/contract.md section 13): an event of the catalogue that
 * webhooks may subscribe to, with its fields, its time and the message id it keeps on every
 * attempt. The store writes it in the transaction of the change it reports (store/outbox.ts), so
 * no crash between the change and its delivery loses it.
 */
import { randomBytes } from 'node:crypto';
import type { AnyEvent, FieldsOf } from './catalogue.ts';

export interface Note {
  /** The Standard Webhooks `webhook-id`: `msg_` and 128 random bits. */
  readonly id: string;
  readonly event: string;
  /** The delivery's `data`, as JSON. */
  readonly data: string;
  readonly at: number;
  /** Whether `*` subscribes to it (run.stored is only sent when named). */
  readonly inStar: boolean;
}

/** The note of an event for the outbox; the same fields the log and the audit trail hear. */
export function note<E extends AnyEvent>(event: E, fields: FieldsOf<E['fields']>, at: number): Note {
  return {
    id: `msg_${randomBytes(16).toString('hex')}`,
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
