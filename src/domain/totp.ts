/**
 * The break-glass account's second factor (docs/contract.md section 14): a TOTP secret, stored
 * sealed, the last time step a code was accepted at (a code works once), and the hashes of the
 * recovery codes not used yet.
 */
import { randomBytes } from 'node:crypto';

export interface TotpFactor {
  /** The secret sealed with AES-256-GCM (actions/totp.ts says under which key). */
  sealedSecret: string;
  /** The time step of the last code accepted: a code of this step or an earlier one is refused. */
  lastStep: number;
  /** HMAC-SHA-256 hex of each unused recovery code. */
  recoveryHashes: string[];
  enrolledAt: number;
}

export const RECOVERY_CODE_COUNT = 10;

const RECOVERY_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
/** 16 characters of a 32-letter alphabet: 80 random bits, beyond any search even with the hashes. */
const RECOVERY_LENGTH = 16;

/** A new recovery code as shown: four groups of four, easy to copy by hand. */
export function newRecoveryCode(): string {
  const bytes = randomBytes(RECOVERY_LENGTH);
  const letters = [...bytes].map((b) => RECOVERY_ALPHABET[b & 31] ?? '').join('');
  return letters.match(/.{4}/g)?.join('-') ?? letters;
}

/** What a typed code is: a TOTP code, a recovery code (either as typed: spaces, hyphens, any case), or neither. */
export function codeKind(typed: string): { kind: 'totp' | 'recovery'; code: string } | undefined {
  const code = typed.replace(/[\s-]/g, '').toLowerCase();
  if (/^[0-9]{6}$/.test(code)) return { kind: 'totp', code };
  if (code.length === RECOVERY_LENGTH && /^[a-z2-7]+$/.test(code)) return { kind: 'recovery', code };
  return undefined;
}
