/**
 * An account's groups at its OIDC sign-in (docs/contract.md section 19): those of the identity
 * token's groups claim (PADDOCK_OIDC_GROUPS_CLAIM), cleaned (oidc/groups.ts), replace the ones it
 * had. The one place a sign-in sets groups: an account that SCIM provisions (section 20) keeps its
 * SCIM memberships instead. What cleaning dropped is logged and audited.
 */
import type { JWTPayload } from 'jose';
import type { Ctx } from '../context/deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { groupsFromClaim } from '../oidc/groups.ts';

export async function signInGroups(ctx: Ctx, subject: string, claims: JWTPayload, client: string): Promise<string[]> {
  // docs/contract.md section 20: a SCIM-linked account's groups are its SCIM memberships, which
  // the SCIM changes write (store/scim.ts); the claim is not read.
  if (await ctx.store.scimUserOfSubject(subject)) return ctx.store.scimGroupsOfSubject(subject);
  const { groups, problem, dropped } = groupsFromClaim(claims[ctx.config.groupsClaim]);
  if (problem !== undefined)
    await ctx.logger.emit(EVENTS.loginOidcGroupsCleaned, {
      account: subject,
      client,
      reason: problem,
      dropped,
      kept: groups.length,
    });
  await ctx.store.setAccountGroups(subject, groups);
  return groups;
}
