/**
 * Device credential rotation (docs/contract.md section 16): the device's own rotation, and an
 * administrator's ask for one. Stored as hashes only: the new credential is derived from a random
 * salt and the credential it replaces (crypto/rotated_credential.ts).
 *
 * Two rotations racing with one credential (two processes of one device, or a retry whose first
 * answer was lost) both get the same new credential: the store's conditional update lets one
 * replace it, and the other, finding it replaced, derives the same credential from the salt that
 * rotation kept. The device ends with one working credential, and the old one for the overlap.
 *
 * At most one rotation a minute: asked again within a minute of the last rotation, with the
 * credential it made, the answer is that same credential, unchanged and not audited again, so
 * chained rotations never reset the credential's age (PADDOCK_CREDENTIAL_MAX_AGE). Asked with the
 * credential it replaced, within its overlap, the answer is the same one too (derived again, as
 * above). Either way the answer is "the credential the last rotation made". After the overlap, the
 * replaced credential is refused as reused (credentialReused below).
 */
import { CREDENTIAL_OVERLAP_MS, type CredentialDevice, rotatedWithinMinute } from '../domain/credentials.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import type { Actor } from '../domain/accounts.ts';
import { constantTimeEqual, secretHash } from '../crypto/random.ts';
import { rotatedCredential, rotationSalt } from '../crypto/rotated_credential.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { actedBy, type ActionDeps } from './deps.ts';

/** The new credential, or 'gone': the one presented stopped working meanwhile (the new one was used, or the overlap ended). */
export type RotateOutcome = { credential: string } | 'gone';

/**
 * The device's rotation with the credential it presented, `found` by it; `client` for the audit
 * record; `keepMs`: how long the replaced credential's hash is kept (replacedKeepMs).
 */
export async function rotateCredential(
  deps: ActionDeps<'rotateCredential' | 'rotationOf' | 'noteCredentialReissued'>,
  found: CredentialDevice,
  presented: string,
  client: string,
  keepMs: number,
): Promise<RotateOutcome> {
  const now = deps.clock.now();
  const replaced = found.credentialHash;
  // The credential the last rotation made, less than a minute ago: it is the answer, and nothing
  // changes (no new credential, no audit record, the credential's age kept).
  if (!found.superseded && rotatedWithinMinute(found.credential, now)) return { credential: presented };
  if (!found.superseded) {
    const salt = rotationSalt();
    const credential = rotatedCredential(salt, presented);
    const fields = { account: found.owner, client, device: found.id };
    const rotation = {
      device: found.id,
      replaced,
      hash: secretHash(credential),
      salt,
      at: now,
      until: now + CREDENTIAL_OVERLAP_MS,
      keepUntil: now + keepMs,
    };
    if (await deps.store.rotateCredential(rotation, note(EVENTS.deviceCredentialRotated, fields, now))) {
      await deps.logger.emit(EVENTS.deviceCredentialRotated, fields);
      return { credential };
    }
  }
  // Already replaced, by a racing rotation or by this one's lost answer: the same new credential.
  const rotation = await deps.store.rotationOf(found.id, replaced, now);
  if (!rotation) return 'gone';
  const credential = rotatedCredential(rotation.salt, presented);
  if (!constantTimeEqual(secretHash(credential), rotation.hash)) return 'gone';
  // Audited once a rotation (section 16: asked again within its minute, "audited once"): a second
  // holder of the old credential learns the new one here, and its address shows it; a flood of
  // such asks writes no more rows.
  const fields = { account: found.owner, client, device: found.id };
  if (await deps.store.noteCredentialReissued(replaced, now, note(EVENTS.deviceCredentialReissued, fields, now)))
    await deps.logger.emit(EVENTS.deviceCredentialReissued, fields);
  return { credential };
}

/** What a presented credential that works no more turned out to be. */
export type ReuseOutcome = 'unknown' | 'reused';

/**
 * Reuse is theft (docs/contract.md section 16): `hash`, presented and found by no lookup, is
 * looked for among the credentials rotations replaced. Found, it is refused as reused; its device,
 * unless already pending or revoked, becomes pending with the reason `credential reused`, audited
 * and delivered once per such transition however many requests present it (a thief's flood writes
 * nothing more: the store's conditional update lets one through). `presentedAt`: when the request
 * arrived, for a credential judged again later (an upload's write refused, a held request woken):
 * one presented before its overlap ended is not reused, only no longer working.
 */
export async function credentialReused(
  deps: ActionDeps<'replacedCredential' | 'noteCredentialReused'>,
  hash: string,
  client: string,
  presentedAt?: number,
): Promise<ReuseOutcome> {
  const now = deps.clock.now();
  const replaced = await deps.store.replacedCredential(hash, now);
  if (!replaced || (presentedAt !== undefined && replaced.overlapUntil > presentedAt)) return 'unknown';
  // A revoked device's credentials are all unknown alike; a pending one's reuse changes nothing more.
  if (replaced.revokedAt !== null) return 'unknown';
  if (replaced.pendingSince !== null) return 'reused';
  const fields = {
    account: replaced.owner,
    client,
    device: replaced.device,
    replaced_at: new Date(replaced.replacedAt).toISOString(),
  };
  if (await deps.store.noteCredentialReused(replaced.device, now, note(EVENTS.deviceCredentialReused, fields, now)))
    await deps.logger.emit(EVENTS.deviceCredentialReused, fields);
  return 'reused';
}

export type AskRotationOutcome = 'asked' | 'revoked' | 'unknown';

/** An administrator asks a device to rotate: its next control answer carries Paddock-Rotate. */
export async function askRotation(
  deps: ActionDeps<'askRotation'>,
  actor: Actor,
  id: string,
): Promise<AskRotationOutcome> {
  if (!DEVICE_ID.test(id)) return 'unknown';
  const now = deps.clock.now();
  const fields = { ...actedBy(actor), device: id };
  const outcome = await deps.store.askRotation(actor, id, now, note(EVENTS.deviceRotationAsked, fields, now));
  if (outcome === 'asked') await deps.logger.emit(EVENTS.deviceRotationAsked, fields);
  return outcome;
}
