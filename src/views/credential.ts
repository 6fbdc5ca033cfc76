/**
 * A device's credential as its page shows it (docs/contract.md section 16): when the one it holds
 * was issued, when it last rotated, and whether a rotation is asked or an old credential still works.
 */
import type { CredentialState } from '../domain/credentials.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';

export function credentialSection(c: CredentialState | undefined, revoked: boolean, now: number): Html {
  if (c === undefined || revoked) return html``;
  return html`<h2>Credential</h2>
    <dl>
      <dt>Issued</dt>
      <dd>${time(c.issuedAt, now)}${c.rotatedAt === null ? ' at enrollment' : ' by its last rotation'}</dd>
      <dt>Last rotated</dt>
      <dd>${c.rotatedAt === null ? 'never: it holds the credential it enrolled with' : time(c.rotatedAt, now)}</dd>
      ${
        c.rotationAskedAt === null
          ? ''
          : html`<dt>Rotation asked</dt>
              <dd>${time(c.rotationAskedAt, now)}: its next answer from Paddock asks it to rotate</dd>`
      }
      ${
        c.previousUntil === null || c.previousUntil <= now
          ? ''
          : html`<dt>Old credential</dt>
              <dd>still accepted until the new one is first used, or ${time(c.previousUntil, now)}</dd>`
      }
      ${
        c.expiredAt === null
          ? ''
          : html`<dt>Expired</dt>
              <dd>${time(c.expiredAt, now)}: refused, older than PADDOCK_CREDENTIAL_MAX_AGE; enroll the device again</dd>`
      }
    </dl>`;
}
