/**
 * Enrollment tokens in the API (docs/contract.md sections 9 and 11), admin tokens only: the outstanding
 * tokens (`GET`, cursor `before` = the last public id shown), minting (`POST`, the fields of
 * section 9 as JSON; 201 with the link, the only place the token ever appears) and revoking. Each
 * goes through the same action as the console's (actions/enroll_tokens.ts), so it is checked, logged and audited alike.
 */
import type { Handler } from 'hono';
import type { EnrollToken } from '../domain/enroll_tokens.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { mintEnrollToken, revokeEnrollToken } from '../actions/enroll_tokens.ts';
import { MINT_FIELD } from '../actions/enroll_token_fields.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { ENROLL_TOKENS } from '../lists/pages.ts';
import { parameterNames } from '../lists/parameters.ts';
import { apiOperation } from './auth.ts';
import { type FieldType, jsonFields } from './json_body.ts';
import { badField, listParameters } from './params.ts';
import { problem } from './problem.ts';
import { iso, pageJson } from './resources.ts';

/** The mint fields and their JSON types; the console's checks then apply each field's rule. */
export const MINT_FIELDS: Record<string, FieldType> = {
  owner: 'string',
  expires_in: 'integer',
  uses: 'integer',
  name: 'string',
  note: 'string',
  max_privacy: 'string',
  labels: 'labels',
  approval: 'string',
};

/** An enrollment token as the API shows it: never the token or its hash. */
export function enrollTokenJson(t: EnrollToken) {
  return {
    id: t.publicId,
    owner: t.owner,
    created_by: t.createdBy,
    created_at: iso(t.createdAt),
    expires_at: iso(t.expiresAt),
    uses: t.uses,
    uses_left: t.usesLeft,
    name: t.name,
    note: t.note,
    max_privacy: t.maxPrivacy,
    labels: { ...t.labels },
    approval: t.approval,
  };
}

export function apiEnrollTokensList(ctx: Ctx): Handler<UiEnv> {
  const parameters = parameterNames(ENROLL_TOKENS);
  return apiOperation(ctx, { parameters, admin: 'listing enrollment tokens' }, async (c) => {
    const q = listParameters(c, ENROLL_TOKENS);
    if (q instanceof Response) return q;
    const page = await ctx.store.outstandingEnrollTokens({ before: q.before, limit: PAGE_SIZE }, ctx.clock.now());
    return c.json(pageJson(page, enrollTokenJson));
  });
}

export function apiEnrollTokenMint(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'minting an enrollment token' }, async (c, actor) => {
    const body = await jsonFields(c, MINT_FIELDS);
    if (!body.ok) return body.response;
    const minted = await mintEnrollToken(ctx, actor, body.fields);
    if (!minted.ok) return badField(c, minted.failure, MINT_FIELD, minted.detail);
    return c.json({ token: enrollTokenJson(minted.token), link: minted.link }, 201);
  });
}

export function apiEnrollTokenRevoke(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'revoking an enrollment token' }, async (c, actor) => {
    if (!(await revokeEnrollToken(ctx, actor, c.req.param('id') ?? '')))
      return problem(c, 404, 'not found', 'no such outstanding enrollment token');
    return c.body(null, 204);
  });
}
