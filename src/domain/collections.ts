/**
 * Collection requests (docs/contract.md section 15): an operator asks devices for a run. A
 * collection is one ask, to one device or to every device a filter matches; each device it
 * reaches is one of its targets, which the device sees as a request (its id is the target's).
 */
import { randomToken } from '../crypto/random.ts';
import type { DeviceFilter } from './devices.ts';
import { VISIBLE_CHAR } from './names.ts';
import type { PrivacyLevel } from './privacy.ts';

/** A target's states; `pending` and `delivered` are open, the rest final. */
export const TARGET_STATES = [
  'pending',
  'delivered',
  'fulfilled',
  'declined',
  'expired',
  'cancelled',
  'skipped',
] as const;
export type TargetState = (typeof TARGET_STATES)[number];
export const OPEN_STATES = ['pending', 'delivered'] as const satisfies readonly TargetState[];

export function isOpen(state: TargetState): boolean {
  return (OPEN_STATES as readonly TargetState[]).includes(state);
}

/** Why a device was skipped when the collection was created (docs/contract.md section 15). */
export const SKIP_REASONS = ['revoked', 'pending', 'ceiling', 'busy'] as const;
export type SkipReason = (typeof SKIP_REASONS)[number];

/** `c_` and 96 random bits. */
export const COLLECTION_ID = /^c_[A-Za-z0-9_-]{16}$/;

export function newCollectionId(): string {
  return `c_${randomToken(12)}`;
}

/** A request's id is its target's sequence number: scoped to its device on every use, it needs no secrecy. */
export const REQUEST_ID = /^r_[1-9][0-9]{0,14}$/;

export const requestId = (seq: number): string => `r_${seq}`;
export const requestSeq = (id: string): number => Number(id.slice(2));

/** The reason shown to the device (and maybe its user): 1 to 200 visible characters. */
export const COLLECTION_REASON = new RegExp(`^${VISIBLE_CHAR}{1,200}$`, 'u');
export const COLLECTION_REASON_RULE = 'reason must be 1 to 200 visible characters';
/** A device's reason for declining: at most 200 characters, or none. */
export const DECLINE_REASON = new RegExp(`^${VISIBLE_CHAR}{0,200}$`, 'u');

/**
 * The end of a failed command's standard error that a decline may carry (`stderr`), in bytes of
 * UTF-8: 3 KiB, so that, with every character escaped in JSON (2 bytes) and the longest reason,
 * the decline still fits the device routes' 8 KiB body (control/device_json.ts).
 */
export const DECLINE_STDERR_MAX = 3072;
/** Control characters a decline's `stderr` may not hold: all of C0, DEL and C1 but line feed and tab. */
const STDERR_CONTROL = /[\0-\x08\x0b-\x1f\x7f-\x9f]/;
export const DECLINE_STDERR_RULE = `stderr must be a string of at most ${DECLINE_STDERR_MAX} bytes of UTF-8 with no control character but line feed and tab`;

const UTF8 = new TextEncoder();

/** Whether `text` may be kept as a decline's `stderr`: well-formed, short enough, no control but \n and \t. */
export function isDeclineStderr(text: string): boolean {
  return text.isWellFormed() && !STDERR_CONTROL.test(text) && UTF8.encode(text).byteLength <= DECLINE_STDERR_MAX;
}

/** `expires_in`, in seconds: a minute to a week, a day when not given. */
export const EXPIRES_IN = { min: 60, max: 604_800, default: 86_400 } as const;
export const EXPIRES_IN_RULE = `expires_in must be whole seconds from ${EXPIRES_IN.min} to ${EXPIRES_IN.max}`;

/** At most this many `device` fields name the devices of one collection. */
export const MAX_NAMED_DEVICES = 1000;
/** One collection reaches at most this many devices. */
export const MAX_TARGETS = 100_000;
/** A device with this many open requests is skipped (`busy`) by a new collection. */
export const MAX_OPEN_PER_DEVICE = 5;
/** A device holds at most this many requests open at once (a third answers the oldest). */
export const MAX_HELD_PER_DEVICE = 2;
/** The hub asks the store for this many held devices' requests at a time (one statement each). */
export const WAKE_SLICE = 500;
/**
 * What a held device is answered with when the hub wakes it: its requests, with the version of its
 * credential read in the same statement (a held request whose credential changed since is judged
 * again), or a 401 when it was revoked.
 */
export type WokenDevice = { requests: DeviceRequest[]; credentialVersion: number } | 'revoked';
/** `wait` of GET /v1/requests, in seconds. */
export const MAX_WAIT_S = 60;

/** Counts of a collection's targets by state (every state present, zeros included). */
export type TargetCounts = Record<TargetState, number>;

export function emptyCounts(): TargetCounts {
  return Object.fromEntries(TARGET_STATES.map((s) => [s, 0])) as TargetCounts;
}

export interface Collection {
  id: string;
  createdBy: string;
  createdAt: number;
  privacy: PrivacyLevel;
  reason: string;
  expiresAt: number;
  /** When its last open target left `pending` and `delivered`; null while it is open. */
  closedAt: number | null;
  cancelledAt: number | null;
  counts: TargetCounts;
}

export interface CollectionTarget {
  /** The request id the device sees. */
  request: string;
  device: string;
  deviceName: string;
  state: TargetState;
  /** Since when it has been in its state. */
  since: number;
  /** The run that fulfilled it. */
  run: string | null;
  /** Why it was declined (the device's words) or skipped (a SkipReason). */
  reason: string | null;
  /** The end of the failed command's standard error that the device sent with its decline; null when none. */
  stderr: string | null;
}

/** A request as the device sees it (GET /v1/requests). */
export interface DeviceRequest {
  id: string;
  collection: string;
  privacy: PrivacyLevel;
  reason: string;
  createdAt: number;
  expiresAt: number;
}

/** Who a new collection reaches: named devices, or the device list's filter. */
export type CollectionScope = { devices: readonly string[] } | { filter: DeviceFilter };

export interface NewCollection {
  id: string;
  createdBy: string;
  createdAt: number;
  privacy: PrivacyLevel;
  reason: string;
  expiresAt: number;
}

/** The collections list's filter: open or closed ones. */
export const COLLECTION_STATES = ['open', 'closed'] as const;
export type CollectionState = (typeof COLLECTION_STATES)[number];
