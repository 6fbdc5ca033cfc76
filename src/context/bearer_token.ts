/**
 * The bearer token of the doors that take one (docs/contract.md sections 11, 14 and 20): a personal
 * access token looked up by its hash and compared in constant time by the store, refused at once
 * when revoked or expired (every instance reads the same row), or while its account is disabled
 * or, for an OIDC account, its latest sign-in is older than PADDOCK_ACCOUNT_SIGNIN_MAX_AGE. The
 * JSON API takes `read` and `write` tokens, SCIM only `scim` ones. A use from a client address the
 * token was not last used from is logged, and so audited; last use is written at most once a minute.
 */
import type { Context } from 'hono';
import { secretHash } from '../crypto/random.ts';
import { ACCESS_TOKEN, type LiveAccessToken } from '../domain/access_tokens.ts';
import { USED_EVERY_MS } from '../store/access_tokens.ts';
import { clientAddress } from '../http/client_address.ts';
import type { Ctx } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';

const BEARER = /^Bearer (\S{1,512})$/;

/** What the token check found: the live token and the client, or the refusal each door words its own way. */
export type TokenCheck =
  | { ok: true; record: LiveAccessToken; client: string }
  | { ok: false; status: 401 | 403; challenge?: string; detail: string };

/**
 * The request's bearer token, checked for a door: the JSON API (`api`) takes `read` and `write`
 * tokens, SCIM (`scim`, docs/contract.md section 20) only `scim` ones, each refusing the others'.
 * A refusal names the WWW-Authenticate challenge to send (RFC 6750 section 3).
 */
export async function checkToken(ctx: Ctx, c: Context, door: 'api' | 'scim'): Promise<TokenCheck> {
  const token = BEARER.exec(c.req.header('authorization') ?? '')?.[1];
  const now = ctx.clock.now();
  const record =
    token !== undefined && ACCESS_TOKEN.test(token)
      ? await ctx.store.accessTokenByHash(secretHash(token), now)
      : undefined;
  const required = door === 'scim' ? 'a valid token of the scim scope' : 'a valid personal access token';
  if (!record)
    return {
      ok: false,
      status: 401,
      challenge: 'Bearer',
      detail: `${required} is required: Authorization: Bearer pdk_…`,
    };
  const client = clientAddress(c);
  const refusal = accountRefusal(ctx, record, now);
  if (refusal !== undefined) {
    await ctx.logger.emit(EVENTS.accessTokenRefused, {
      account: record.subject,
      client,
      token: record.publicId,
      reason: refusal.reason,
    });
    return { ok: false, status: 401, challenge: 'Bearer error="invalid_token"', detail: refusal.detail };
  }
  if ((record.scope === 'scim') !== (door === 'scim')) {
    const what = { account: record.subject, client, token: record.publicId, path: c.req.path, scope: record.scope };
    await ctx.logger.emit(EVENTS.accessScopeRefused, what);
    return door === 'scim'
      ? { ok: false, status: 401, challenge: 'Bearer', detail: `${required} is required: this token is not one` }
      : {
          ok: false,
          status: 403,
          challenge: 'Bearer error="insufficient_scope"',
          detail: 'this token has the scim scope: it works only under /scim/v2',
        };
  }
  if (record.scope === 'read' && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
    await ctx.logger.emit(EVENTS.accessReadOnlyRefused, {
      account: record.subject,
      client,
      token: record.publicId,
      path: c.req.path,
    });
    return { ok: false, status: 403, detail: 'this token has the read scope: it cannot change anything' };
  }
  if (record.lastUsedClient !== client) {
    await ctx.logger.emit(EVENTS.accessTokenUsed, { account: record.subject, client, token: record.publicId });
    await ctx.store.touchAccessToken(record.publicId, now, client);
  } else if (record.lastUsedAt === null || now - record.lastUsedAt >= USED_EVERY_MS) {
    // The record just read says whether a write is due: most calls of a script write nothing.
    await ctx.store.touchAccessToken(record.publicId, now, client);
  }
  return { ok: true, record, client };
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
