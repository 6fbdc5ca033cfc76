/**
 * Break-glass password hashes: argon2id with OWASP's parameters (19 MiB, 2 passes, parallelism 1),
 * in PHC string form, so the parameters travel with the hash and can be raised later.
 */
import { argon2, randomBytes, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const argon2Async = promisify(argon2);

const params = { memory: 19_456, passes: 2, parallelism: 1, tagLength: 32 } as const;

/** Hashes `password` with a fresh 16-byte salt; returns `$argon2id$v=19$m=…,t=…,p=…$salt$hash`. */
export async function hashPassword(password: string): Promise<string> {
  const nonce = randomBytes(16);
  const tag = await argon2Async('argon2id', { message: password, nonce, ...params });
  return `$argon2id$v=19$m=${params.memory},t=${params.passes},p=${params.parallelism}$${b64(nonce)}$${b64(tag)}`;
}

const phc =
  /^\$argon2id\$v=19\$m=([0-9]{1,7}),t=([0-9]{1,2}),p=([0-9]{1,2})\$([A-Za-z0-9+/]{11,})\$([A-Za-z0-9+/]{22,})$/;

/** Verifies `password` against a PHC string; false (never an exception) for a malformed hash. */
export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  const m = phc.exec(hash);
  if (!m) return false;
  const [memory, passes, parallelism] = [Number(m[1]), Number(m[2]), Number(m[3])];
  // Bounds stop a tampered row from making one sign-in attempt allocate gigabytes.
  if (memory < 8 || memory > 262_144 || passes < 1 || parallelism < 1) return false;
  const nonce = Buffer.from(m[4] ?? '', 'base64');
  const expected = Buffer.from(m[5] ?? '', 'base64');
  const tag = await argon2Async('argon2id', {
    message: password,
    nonce,
    memory,
    passes,
    parallelism,
    tagLength: expected.length,
  });
  return timingSafeEqual(tag, expected);
}

/** A hash of a random password, verified against when no credential exists so both cases cost the same. */
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'));
  return decoy;
}
let decoy: Promise<string> | undefined;

/** A generated break-glass password: 128 bits of entropy (docs/contract.md section 5). */
export function generatePassword(): string {
  return randomBytes(16).toString('base64url');
}

function b64(bytes: Buffer): string {
  return bytes.toString('base64').replace(/=+$/, '');
}
