/**
 * The rules of an enrollment token's mint fields (docs/contract.md section 9) and the shape of its public
 * identifier: the one place every form check, message and view reads them.
 */
import { randomToken } from '../crypto/random.ts';
import type { Labels } from './labels.ts';
import type { Facts } from './facts.ts';
import type { PrivacyLevel } from './privacy.ts';

/** `expires_in`, seconds. */
export const EXPIRES_IN_MIN = 600;
export const EXPIRES_IN_MAX = 2_592_000;

/** `uses`: how many devices one token enrolls (a provisioning line mints more than one). */
export const USES_MIN = 1;
export const USES_MAX = 1000;

/** `note`: free text shown on the tokens page and the device page. */
export const NOTE_MAX = 200;

/**
 * The longest a token can live: the configured default lifetime may be up to a year (config
 * settings' `lifetime`), longer than a form may ask for. The outstanding list reads only tokens
 * minted within it, so its scan never walks the whole history of expired tokens.
 */
export const LONGEST_TOKEN_LIFETIME_MS = 31_536_000_000;

/**
 * The id a token record is addressed by on the tokens page (`t_` + 96 random bits): random, so it
 * says nothing of the token or its hash, which never leave the store.
 */
export const TOKEN_PUBLIC_ID = /^t_[A-Za-z0-9_-]{1,62}$/;

export function newTokenPublicId(): string {
  return `t_${randomToken(12)}`;
}

/**
 * `approval` (docs/contract.md section 16): `required` enrolls devices as pending, to wait for an
 * administrator; `automatic` (the default) lets them in at once.
 */
export const APPROVALS = ['automatic', 'required'] as const;
export type Approval = (typeof APPROVALS)[number];
export const APPROVAL_RULE = `approval must be ${APPROVALS.join(' or ')}`;

export function isApproval(text: string): text is Approval {
  return (APPROVALS as readonly string[]).includes(text);
}

export const EXPIRES_IN_RULE = `expires_in must be a whole number of seconds from ${EXPIRES_IN_MIN} to ${EXPIRES_IN_MAX}`;
export const USES_RULE = `uses must be a whole number from ${USES_MIN} to ${USES_MAX}`;
export const NOTE_RULE = `note must be at most ${NOTE_MAX} printable characters`;

export interface EnrollInput {
  tokenHash: string;
  now: number;
  deviceId: string;
  name: string;
  credentialHash: string;
  /** What the device reported at enrollment (docs/contract.md section 16); absent: no report yet. */
  facts?: Facts | undefined;
  /** The client address it enrolls from (http/client_address.ts); absent: not known. */
  from?: string | undefined;
}

/** What minting stores; the fields after expiresAt default to one use, no name, no note, `full`. */
export interface NewEnrollToken {
  hash: string;
  owner: string;
  createdBy: string;
  createdAt: number;
  expiresAt: number;
  uses?: number | undefined;
  /** The enrolled devices' name, overriding the one a device asks for; empty for none. */
  name?: string | undefined;
  note?: string | undefined;
  maxPrivacy?: PrivacyLevel | undefined;
  /** The labels every device it enrolls starts with (docs/contract.md section 12). */
  labels?: Labels | undefined;
  /** Whether its devices wait for an administrator's approval; `automatic` when absent. */
  approval?: Approval | undefined;
}

/** A token record as the tokens page shows it: never the token or its hash. */
export interface EnrollToken {
  /** Random, URL-safe: how the tokens page names the record (docs/contract.md section 9). */
  publicId: string;
  owner: string;
  createdBy: string;
  createdAt: number;
  expiresAt: number;
  uses: number;
  usesLeft: number;
  name: string;
  note: string;
  maxPrivacy: PrivacyLevel;
  revokedAt: number | null;
  labels: Labels;
  approval: Approval;
}
