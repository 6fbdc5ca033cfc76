/**
 * An OIDC sign-in meets SCIM (docs/contract.md section 20): the SCIM user it is, either the one
 * already linked to its account or the unlinked one whose userName equals the identity token's
 * PADDOCK_SCIM_USER_CLAIM in any case (linked once the session starts). A user linked to another
 * account is not this one: a userName the provider gave to someone else takes no account over.
 * An inactive user's sign-in is refused as a disabled account's is; with PADDOCK_SCIM_REQUIRED,
 * so is a sign-in that matches no active user.
 */
import type { Context } from 'hono';
import type { JWTPayload } from 'jose';
import type { Ctx } from '../context/deps.ts';
import type { ScimUser } from '../domain/scim.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import { fail } from '../http/failures.ts';

/** The SCIM user of this sign-in (undefined: none), or the refusal to answer with. */
export async function scimUserAtSignIn(
  ctx: Ctx,
  c: Context,
  subject: string,
  claims: JWTPayload,
  client: string,
): Promise<ScimUser | undefined | Response> {
  const claim = claims[ctx.config.scimUserClaim];
  const linked = await ctx.store.scimUserOfSubject(subject);
  const candidate =
    linked ??
    // No userName holds a control character (and PostgreSQL takes no NUL): such a claim matches none.
    (typeof claim === 'string' && claim !== '' && !/\p{Cc}/u.test(claim)
      ? await ctx.store.scimUserByUserName(claim)
      : undefined);
  const user = candidate && (candidate.subject === null || candidate.subject === subject) ? candidate : undefined;
  if (user && !user.active) {
    await ctx.logger.emit(EVENTS.loginRefusedDisabled, { account: subject, method: 'oidc', client });
    return fail(c, 'accountDisabled');
  }
  if (!user && ctx.config.scimRequired) {
    await ctx.logger.emit(EVENTS.loginOidcTokenRejected, {
      client,
      error: `no active SCIM user has the userName the token's ${ctx.config.scimUserClaim} claim gives (PADDOCK_SCIM_REQUIRED)`,
    });
    return fail(c, 'notProvisioned');
  }
  return user;
}

/** Links the user to the account that just signed in, the first time: its SCIM groups become the account's. */
export async function linkAtSignIn(ctx: Ctx, user: ScimUser, subject: string, client: string): Promise<void> {
  if (user.subject !== null) return;
  const fields = { account: subject, client, user: user.id, userName: user.userName };
  // The webhook note goes with the link, in its transaction (docs/contract.md section 13).
  if (await ctx.store.linkScimUser(user.id, subject, [note(EVENTS.scimUserLinked, fields, ctx.clock.now())]))
    await ctx.logger.emit(EVENTS.scimUserLinked, fields);
}
