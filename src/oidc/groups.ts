/**
 * The groups claim of an identity token (PADDOCK_OIDC_GROUPS_CLAIM) as an account's groups
 * (docs/contract.md section 19). The claim is the identity provider's to shape, so it is cleaned
 * rather than trusted: a lone string is a list of one (as the admin check reads it); anything else
 * that is not a list of strings counts as no groups, so a malformed claim never reaches more than a
 * clear one would; names that are not group names (empty, a control character, past 128
 * characters) are dropped; past MAX_ACCOUNT_GROUPS the first ones in the claim's order are kept.
 */
import { isGroupName, MAX_ACCOUNT_GROUPS } from '../domain/owners.ts';

/** What cleaning found wrong with a claim, for its log record; `undefined` when nothing was. */
export type GroupsClaimProblem = 'not_a_list' | 'invalid_names' | 'too_many';

export interface ClaimedGroups {
  /** The groups kept, in the claim's order, each once. */
  groups: string[];
  /** The first thing wrong, if any (a claim that is not a list is nothing else). */
  problem: GroupsClaimProblem | undefined;
  /** Entries left out: invalid names, and those past MAX_ACCOUNT_GROUPS (or the whole list's length when not a list of strings). */
  dropped: number;
}

/** The account's groups from the claim's value (absent: none, and nothing wrong). */
export function groupsFromClaim(claim: unknown): ClaimedGroups {
  if (claim === undefined || claim === null) return { groups: [], problem: undefined, dropped: 0 };
  const list = typeof claim === 'string' ? [claim] : claim;
  if (!Array.isArray(list) || !list.every((g): g is string => typeof g === 'string'))
    return { groups: [], problem: 'not_a_list', dropped: Array.isArray(list) ? list.length : 1 };
  const valid = [...new Set(list.filter(isGroupName))];
  const invalid = list.length - list.filter(isGroupName).length;
  const groups = valid.slice(0, MAX_ACCOUNT_GROUPS);
  const beyond = valid.length - groups.length;
  const problem = invalid > 0 ? 'invalid_names' : beyond > 0 ? 'too_many' : undefined;
  return { groups, problem, dropped: invalid + beyond };
}
