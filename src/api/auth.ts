/**
 * The JSON API's authentication (docs/contract.md sections 11 and 14): `Authorization: Bearer pdk_…`,
 * checked by context/bearer_token.ts (shared with SCIM, which takes only `scim` tokens; a `scim`
 * token here is a 403). The token acts with its account's admin flag as the latest sign-in set it,
 * and with its account's groups as they are now. A `read` token is refused with 403 on every method
 * but GET and HEAD: what the route does is not consulted, so a write route added later is covered too. */
import type { Context, Handler } from 'hono';
import { checkToken } from '../context/bearer_token.ts';
import type { Actor } from '../domain/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { strictParameters } from './params.ts';
import { problem } from './problem.ts';
import { EVENTS } from '../events/catalogue.ts';

/** The account the request's token stands for, as the actor of an action (from this client), or the problem to answer. */
export async function apiViewer(ctx: Ctx, c: Context): Promise<Actor | Response> {
  const checked = await checkToken(ctx, c, 'api');
  if (!checked.ok) {
    if (checked.challenge !== undefined) c.header('WWW-Authenticate', checked.challenge);
    return problem(c, checked.status, checked.status === 401 ? 'unauthorized' : 'forbidden', checked.detail);
  }
  const { record, client } = checked;
  // The account's groups as they are now (docs/contract.md section 19): a change reaches the token
  // at its next request, on every instance. An administrator's scope is everything: not read.
  const admin = record.account?.admin === true;
  const groups = admin ? [] : await ctx.store.accountGroups(record.subject);
  return { subject: record.subject, admin, groups, client };
}

/**
 * An API operation: the token is checked, then the query's parameters (only `parameters`, each at
 * most once but for `repeatable` ones, which the list's parser counts), then `admin` operations refuse other accounts' tokens with a 403 problem, logged as
 * the console's refusal is; `handle` runs only when all have passed.
 */
export function apiOperation(
  ctx: Ctx,
  opts: { parameters?: readonly string[]; repeatable?: readonly string[]; admin?: string },
  handle: (c: Context<UiEnv>, actor: Actor) => Promise<Response>,
): Handler<UiEnv> {
  return async function apiOperationHandler(c) {
    const viewer = await apiViewer(ctx, c);
    if (viewer instanceof Response) return viewer;
    const strict = strictParameters(c, opts.parameters ?? [], opts.repeatable);
    if (strict) return strict;
    if (opts.admin !== undefined && !viewer.admin) {
      await ctx.logger.emit(EVENTS.accessAdminRefused, { account: viewer.subject, path: c.req.path });
      return problem(c, 403, 'forbidden', `${opts.admin} needs a token of an administrator account`);
    }
    c.header('Cache-Control', 'no-store');
    return handle(c, viewer);
  };
}
