/**
 * Enrollment tokens (docs/contract.md section 9): an admin mints and revokes them. The token is stored only
 * as its hash and leaves only in the link, which the door shows once; neither goes into a log record.
 */
import { randomToken, secretHash } from '../crypto/random.ts';
import { TOKEN_PUBLIC_ID, type EnrollToken } from '../domain/enroll_tokens.ts';
import { parseOwner } from '../domain/owners.ts';
import type { Actor } from '../domain/accounts.ts';
import type { LinkBuilder } from '../link/link_builder.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { type MintFailure, readMintFields } from './enroll_token_fields.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note as noteOf } from '../events/note.ts';

export type MintOutcome =
  { ok: true; token: EnrollToken; link: string } | { ok: false; failure: MintFailure; detail?: string };

export interface MintDeps extends ActionDeps<'createEnrollToken'> {
  linkBuilder: LinkBuilder;
  /** PADDOCK_ENROLL_TOKEN_TTL: the lifetime of a token minted without `expires_in`. */
  config: { enrollTokenTtlSeconds: number };
}

/**
 * Mints a token from the fields of docs/contract.md section 9, as text (a form's, or the API's JSON turned
 * into text); the owner defaults to the actor.
 */
export async function mintEnrollToken(
  deps: MintDeps,
  actor: Actor,
  fields: ReadonlyMap<string, string>,
): Promise<MintOutcome> {
  // A subject or group:<name> (docs/contract.md section 19): the devices it enrolls belong to that owner.
  const parsed = parseOwner((fields.get('owner') ?? '').trim() || actor.subject);
  if (!parsed.ok) return { ok: false, failure: 'badOwner', detail: parsed.message };
  const { owner } = parsed;
  const read = readMintFields(fields, deps.config.enrollTokenTtlSeconds);
  if (!read.ok) return read;
  const { expiresInSeconds, uses, name, note, maxPrivacy, labels, approval } = read.fields;
  const token = randomToken(32);
  const now = deps.clock.now();
  const minted = (t: EnrollToken) => ({
    ...actedBy(actor),
    owner,
    token: t.publicId,
    uses,
    max_privacy: maxPrivacy,
    approval,
  });
  const record = await deps.store.createEnrollToken(
    {
      hash: secretHash(token),
      owner,
      createdBy: actor.subject,
      createdAt: now,
      expiresAt: now + expiresInSeconds * 1000,
      uses,
      name,
      note,
      maxPrivacy,
      labels,
      approval,
    },
    (t) => noteOf(EVENTS.enrollTokenMinted, minted(t), now),
  );
  await deps.logger.emit(EVENTS.enrollTokenMinted, minted(record));
  return { ok: true, token: record, link: deps.linkBuilder({ ...record, token }) };
}

/** Revokes an outstanding enrollment token by its public id; false when there is none. */
export async function revokeEnrollToken(
  deps: ActionDeps<'revokeEnrollToken'>,
  actor: Actor,
  id: string,
): Promise<boolean> {
  const now = deps.clock.now();
  const fields = { ...actedBy(actor), token: id };
  const note = noteOf(EVENTS.enrollTokenRevoked, fields, now);
  if (!TOKEN_PUBLIC_ID.test(id) || !(await deps.store.revokeEnrollToken(id, now, note))) return false;
  await deps.logger.emit(EVENTS.enrollTokenRevoked, fields);
  return true;
}
