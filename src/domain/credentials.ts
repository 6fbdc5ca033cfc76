/**
 * A device's credential over time (docs/contract.md section 16): issued at enrollment, replaced by
 * rotations, asked to rotate once older than PADDOCK_CREDENTIAL_ROTATE_AFTER or when an
 * administrator says so, refused once older than PADDOCK_CREDENTIAL_MAX_AGE. The rules are here,
 * once; the control app applies them to every answer (control/credential_rules.ts).
 */
import type { Device } from './devices.ts';

/** The credential a rotation replaced keeps working this long, unless the new one is used first. */
export const CREDENTIAL_OVERLAP_MS = 10 * 60_000;

/**
 * At most one rotation this often (docs/contract.md section 16): a rotation asked sooner with the
 * credential the last one made answers that same credential, so chained rotations cannot reset the
 * credential's age that PADDOCK_CREDENTIAL_MAX_AGE judges.
 */
export const ROTATION_EVERY_MS = 60_000;

/** A replaced credential's hash is kept this long when PADDOCK_CREDENTIAL_MAX_AGE is unset (90 days). */
export const DEFAULT_REPLACED_KEEP_MS = 90 * 86_400_000;

/** How long a replaced credential's hash is kept, to recognise its reuse: PADDOCK_CREDENTIAL_MAX_AGE, or 90 days. */
export function replacedKeepMs(rules: Pick<CredentialRules, 'maxAgeMs'> | undefined): number {
  return rules?.maxAgeMs ?? DEFAULT_REPLACED_KEEP_MS;
}

/** Whether the current credential was made by a rotation less than ROTATION_EVERY_MS before `now`. */
export function rotatedWithinMinute(c: CredentialState, now: number): boolean {
  return c.rotatedAt !== null && now - c.rotatedAt < ROTATION_EVERY_MS;
}

/** The answer header that asks a device to rotate, and its one value. */
export const ROTATE_HEADER = 'Paddock-Rotate';
export const ROTATE_CREDENTIAL = 'credential';

/** PADDOCK_CREDENTIAL_ROTATE_AFTER's default, as its settings row writes it (30d). */
export const DEFAULT_ROTATE_AFTER_MS = 30 * 86_400_000;

/** What the store keeps of a device's credential, besides its hash. */
export interface CredentialState {
  /** When the current credential was issued: at enrollment, or by the last rotation. */
  issuedAt: number;
  /** When the last rotation issued it; null while the device holds its enrollment's credential. */
  rotatedAt: number | null;
  /** When an administrator asked for a rotation that has not happened yet; null when none is asked. */
  rotationAskedAt: number | null;
  /** While the credential the last rotation replaced still works: until when (sooner if the new one is used). */
  previousUntil: number | null;
  /** When the current credential's expiry was audited (once); null when it was not. */
  expiredAt: number | null;
}

/** A device found by a credential it presented (store deviceByCredential). */
export interface CredentialDevice extends Device {
  /** The hash that matched: the current credential's, or the replaced one's. */
  credentialHash: string;
  credential: CredentialState;
  /** The credential presented is the one the last rotation replaced, still in its overlap. */
  superseded: boolean;
  /**
   * The store's count of changes to what this lookup answers (a rotation, the new credential's first
   * use, an administrator's ask, a reuse that made the device pending). An upload is stored only
   * while it is unchanged.
   */
  version: number;
}

/** The two settings that age a credential. */
export interface CredentialRules {
  /** PADDOCK_CREDENTIAL_ROTATE_AFTER, in milliseconds. */
  rotateAfterMs: number;
  /** PADDOCK_CREDENTIAL_MAX_AGE, in milliseconds; undefined: credentials never expire. */
  maxAgeMs: number | undefined;
}

/**
 * Whether a credential found at `now` is refused as expired. The replaced credential in its overlap
 * is not: it was good when it was rotated, and works for the overlap alone.
 */
export function credentialExpired(found: CredentialDevice, rules: CredentialRules, now: number): boolean {
  return !found.superseded && rules.maxAgeMs !== undefined && now - found.credential.issuedAt > rules.maxAgeMs;
}

/** Whether a credential found at `now` still works: the replaced one only until its overlap ends. */
export function credentialWorks(found: CredentialDevice, now: number): boolean {
  return !found.superseded || (found.credential.previousUntil ?? 0) > now;
}

/**
 * Whether an answer to this credential asks the device to rotate: it is older than
 * PADDOCK_CREDENTIAL_ROTATE_AFTER, an administrator asked, or it is the replaced one (the device
 * then rotates with it again and gets the new one it has not kept). Never within a minute of the
 * rotation that made the current one: a rotation then would answer the same credential.
 */
export function rotationDue(found: CredentialDevice, rules: CredentialRules, now: number): boolean {
  const c = found.credential;
  if (found.superseded) return true;
  if (rotatedWithinMinute(c, now)) return false;
  return c.rotationAskedAt !== null || now - c.issuedAt > rules.rotateAfterMs;
}
