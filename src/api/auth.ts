/**
 * The JSON API's authentication (docs/contract.md sections 11 and 14): `Authorization: Bearer pdk_…`, a
 * personal access token looked up by its hash and compared in constant time by the store, refused
 * at once when revoked or expired (every instance reads the same row). The token acts with its
 * account's admin flag as the latest sign-in set it, and is refused while the account is disabled
 * or, for an OIDC account, while its latest sign-in is older than PADDOCK_ACCOUNT_SIGNIN_MAX_AGE. A
 * `read` token is refused with 403 on every method but GET and HEAD: what the route does is not
 * consulted, so a write route added later is covered too. A use from a client address the token
 * was not last used from is logged, and so audited; last use is written at most once a minute.
 */
import type { Context, Handler } from 'hono';
import { secretHash } from '../crypto/random.ts';
import { ACCESS_TOKEN, type LiveAccessToken } from '../domain/access_tokens.ts';
import { USED_EVERY_MS } from '../store/access_tokens.ts';
import { clientAddress } from '../http/client_address.ts';
import type { Actor } from '../domain/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { strictParameters } from './params.ts';
import { problem } from './problem.ts';
import { EVENTS } from '../events/catalogue.ts';

const BEARER = /^Bearer (\S{1,512})$/;

/** The account the request's token stands for, as the actor of an action (from this client), or the 401 problem to answer. */
export async function apiViewer(ctx: Ctx, c: Context): Promise<Actor | Response> {
  const token = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
  const now = ctx.clock.now();
  const record =
    token !== undefined && ACCESS_TOKEN.test(token)
      ? await ctx.store.accessTokenByHash(secretHash(token), now)
      : undefined;
  if (!record) {
    c.header('WWW-Authenticate', 'Bearer');
    return problem(c, 401, 'unauthorized', 'a valid personal access token is required: Authorization: Bearer pdk_…');
  }
  const client = clientAddress(c);
  const refusal = accountRefusal(ctx, record, now);
  if (refusal !== undefined) {
    await ctx.logger.emit(EVENTS.accessTokenRefused, {
      account: record.subject,
      client,
      token: record.publicId,
      reason: refusal.reason,
    });
    c.header('WWW-Authenticate', 'Bearer error="invalid_token"');
    return problem(c, 401, 'unauthorized', refusal.detail);
  }
  if (record.scope === 'read' && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    await ctx.logger.emit(EVENTS.accessReadOnlyRefused, {
      account: record.subject,
      client,
      token: record.publicId,
      path: c.req.path,
    });
    return problem(c, 403, 'forbidden', 'this token has the read scope: it cannot change anything');
  }
  if (record.lastUsedClient !== client) {
    await ctx.logger.emit(EVENTS.accessTokenUsed, { account: record.subject, client, token: record.publicId });
    await ctx.store.touchAccessToken(record.publicId, now, client);
  } else if (record.lastUsedAt === null || now - record.lastUsedAt >= USED_EVERY_MS) {
    // The record just read says whether a write is due: most calls of a script write nothing.
    await ctx.store.touchAccessToken(record.publicId, now, client);
  }
  return { subject: record.subject, admin: record.account?.admin === true, client };
}

/** Why a live token's account does not let it act now (docs/contract.md section 14), or undefined. */
function accountRefusal(
  ctx: Ctx,
  record: LiveAccessToken,
  now: number,
): { reason: 'never_signed_in' | 'disabled' | 'sign_in_too_old'; detail: string } | undefined {
  const { account } = record;
  if (account === null) return { reason: 'never_signed_in', detail: "the token's account has never signed in" };
  if (account.disabledAt !== null) return { reason: 'disabled', detail: "the token's account is disabled" };
  // Only an identity provider can remove an account without Paddock hearing of it; the
  // break-glass account is Paddock's own, and signs in only when the provider is down.
  if (record.subject.startsWith('oidc:') && now - account.lastSignInAt > ctx.config.accountSignInMaxAgeMs)
    return {
      reason: 'sign_in_too_old',
      detail: "the token's account has not signed in to the console recently enough: sign in again, then retry",
    };
  return undefined;
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
