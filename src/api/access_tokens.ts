/**
 * Personal access tokens in the API (docs/contract.md sections 11 and 14): the account's own tokens
 * (`GET`, cursor `before`), minting (`POST` with `name`, `expires_in` and `scope`; 201 with the
 * token, the only place it ever appears) and revoking. The same actions as the console's
 * (actions/access_tokens.ts), so each is checked, logged and audited alike; a `read` token is
 * refused both (api/auth.ts), like every change.
 */
import type { Handler } from 'hono';
import type { AccessToken } from '../domain/access_tokens.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { ACCESS_TOKEN_FIELD, createAccessToken, revokeAccessToken } from '../actions/access_tokens.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { ACCESS_TOKENS } from '../lists/pages.ts';
import { parameterNames } from '../lists/parameters.ts';
import { apiOperation } from './auth.ts';
import { type FieldType, jsonFields } from './json_body.ts';
import { badField, listParameters } from './params.ts';
import { problem } from './problem.ts';
import { FAILURES } from '../http/failures.ts';
import { iso, pageJson } from './resources.ts';

export const CREATE_TOKEN_FIELDS: Record<string, FieldType> = {
  name: 'string',
  expires_in: 'integer',
  scope: 'string',
};

/** A personal access token as the API shows it: never the token or its hash. */
export function accessTokenJson(t: AccessToken, now: number) {
  return {
    id: t.publicId,
    name: t.name,
    scope: t.scope,
    created_at: iso(t.createdAt),
    expires_at: iso(t.expiresAt),
    last_used_at: iso(t.lastUsedAt),
    last_used_client: t.lastUsedClient,
    revoked_at: iso(t.revokedAt),
    state: t.revokedAt !== null ? 'revoked' : t.expiresAt <= now ? 'expired' : 'active',
  };
}

export function apiAccessTokensList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: parameterNames(ACCESS_TOKENS) }, async (c, actor) => {
    const q = listParameters(c, ACCESS_TOKENS);
    if (q instanceof Response) return q;
    const page = await ctx.store.accessTokensOf(actor.subject, { before: q.before, limit: PAGE_SIZE });
    const now = ctx.clock.now();
    return c.json(pageJson(page, (t) => accessTokenJson(t, now)));
  });
}

export function apiAccessTokenCreate(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const body = await jsonFields(c, CREATE_TOKEN_FIELDS, ['name']);
    if (!body.ok) return body.response;
    const created = await createAccessToken(ctx, actor, {
      name: body.fields.get('name') ?? '',
      expiresIn: body.fields.get('expires_in') ?? '',
      scope: body.fields.get('scope'),
    });
    if (!created.ok && created.failure === 'scimTokenNotAdmin')
      return problem(c, 403, 'forbidden', FAILURES.scimTokenNotAdmin.message, { field: 'scope' });
    if (!created.ok) return badField(c, created.failure, ACCESS_TOKEN_FIELD);
    return c.json({ token: accessTokenJson(created.record, ctx.clock.now()), value: created.token }, 201);
  });
}

export function apiAccessTokenRevoke(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    if (!(await revokeAccessToken(ctx, actor, c.req.param('id') ?? '')))
      return problem(c, 404, 'not found', 'no such live access token of this account');
    return c.body(null, 204);
  });
}
