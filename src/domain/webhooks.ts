/**
 * Webhook endpoints and their deliveries (docs/contract.md section 13): the entities, the retry
 * schedule and the rules on a subscription.
 */

/** `wh_` and 96 random bits, URL-safe. */
export const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{16}$/;
/** A delivery's number in the URL of its redelivery. */
export const DELIVERY_ID = /^[1-9][0-9]{0,15}$/;

export interface Webhook {
  id: string;
  url: string;
  /** Subscribed event names; `*` for every event but the opt-in ones. */
  events: string[];
  description: string;
  enabled: boolean;
  createdAt: number;
  createdBy: string;
  /** When the secret was last replaced (the previous one signs too for ROTATION_OVERLAP_MS). */
  rotatedAt: number | null;
  /** Failed attempts in a row, and when that run of failures began. */
  failures: number;
  failingSince: number | null;
  lastAttemptAt: number | null;
  /** `200`, `500`, `timeout`, `refused: loopback address`…: the last attempt's status code or error. */
  lastOutcome: string | null;
}

export interface NewWebhook {
  id: string;
  url: string;
  events: string[];
  description: string;
  /** The signing secret, sealed (crypto/sealed.ts). */
  sealedSecret: string;
  createdAt: number;
  createdBy: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One attempt of one delivery, for the endpoint's page. */
export interface WebhookAttempt {
  delivery: number;
  message: string;
  event: string;
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
  /** The delivery's status now (pending: another attempt is due). */
  status: DeliveryStatus;
}

/** A delivery claimed by one sender for one attempt. */
export interface ClaimedDelivery {
  seq: number;
  /** This attempt's number, from 1. */
  attempt: number;
  message: string;
  event: string;
  data: string;
  createdAt: number;
  endpoint: string;
  url: string;
  sealedSecret: string;
  sealedPrevious: string | null;
  rotatedAt: number | null;
}

/** How an attempt ended. */
export interface AttemptResult {
  seq: number;
  attempt: number;
  endpoint: string;
  at: number;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * The delay before each retry, after the first attempt (Standard Webhooks' usual schedule): the
 * first retry within a minute, the last about 27 hours after the event; then the delivery failed.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];
/** After a rotation the previous secret signs too, for this long. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
/** A sender holds a claimed delivery this long; past it another sender may retry it (a crash). */
export const CLAIM_MS = 60_000;

/** An endpoint's `events` column: the names, space-separated. */
export function eventsColumn(events: readonly string[]): string {
  return events.join(' ');
}
