/**
 * Device credential rotation (docs/contract.md section 16): the device's own rotation, and an
 * administrator's ask for one. Stored as hashes only: the new credential is derived from a random
 * salt and the credential it replaces (crypto/rotated_credential.ts).
 *
 * Two rotations racing with one credential (two processes of one device, or a retry whose first
 * answer was lost) both get the same new credential: the store's conditional update lets one
 * replace it, and the other, finding it replaced, derives the same credential from the salt that
 * rotation kept. The device ends with one working credential, and the old one for the overlap.
 */
import { CREDENTIAL_OVERLAP_MS, type CredentialDevice } from '../domain/credentials.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import type { Actor } from '../domain/accounts.ts';
import { constantTimeEqual, secretHash } from '../crypto/random.ts';
import { rotatedCredential, rotationSalt } from '../crypto/rotated_credential.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { actedBy, type ActionDeps } from './deps.ts';

/** The new credential, or 'gone': the one presented stopped working meanwhile (the new one was used, or the overlap ended). */
export type RotateOutcome = { credential: string } | 'gone';

/** The device's rotation with the credential it presented, `found` by it; `client` for the audit record. */
export async function rotateCredential(
  deps: ActionDeps<'rotateCredential' | 'rotationOf' | 'enqueue'>,
  found: CredentialDevice,
  presented: string,
  client: string,
): Promise<RotateOutcome> {
  const now = deps.clock.now();
  const replaced = found.credentialHash;
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
  // Audited: a second holder of the old credential learns the new one here, and its address shows it.
  const fields = { account: found.owner, client, device: found.id };
  await deps.store.enqueue(note(EVENTS.deviceCredentialReissued, fields, now));
  await deps.logger.emit(EVENTS.deviceCredentialReissued, fields);
  return { credential };
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
