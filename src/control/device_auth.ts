/**
 * The device's credential on every control route but enrollment (docs/contract.md section 6):
 * `Authorization: Bearer <credential>`, looked up by its hash (credential_cache.ts) and compared in
 * constant time; a revoked device's credential is unknown.
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { secretHash } from '../crypto/random.ts';
import type { Device } from '../domain/devices.ts';
import type { CredentialCache } from './credential_cache.ts';

const BEARER = /^Bearer ([A-Za-z0-9_-]{43})$/i;

/** The device of the request's credential and the credential's hash, or undefined when it is unknown or revoked. */
export async function deviceOf(
  c: Context,
  credentials: CredentialCache,
): Promise<{ device: Device; hash: string } | undefined> {
  const credential = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
  if (credential === undefined) return undefined;
  const hash = secretHash(credential);
  const device = await credentials.lookup(hash);
  // The lookup is by hash; the constant-time comparison makes the match itself leak nothing.
  if (!device || !timingSafeEqual(Buffer.from(device.credentialHash), Buffer.from(hash)) || device.revokedAt !== null)
    return undefined;
  return { device, hash };
}
