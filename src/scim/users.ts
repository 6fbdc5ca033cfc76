/**
 * /scim/v2/Users (RFC 7644 section 3; docs/contract.md section 20): each door authenticates
 * (scim/auth.ts), reads its query or body, calls the action (actions/scim_users.ts) and shows the
 * resource or the SCIM error.
 */
import type { Context, Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { breakGlassSubject } from '../domain/accounts.ts';
import { readIfMatch, SCIM_ID, type ScimUser } from '../domain/scim.ts';
import {
  createScimUser,
  deleteScimUser,
  type LeavingSettings,
  patchScimUser,
  replaceScimUser,
} from '../actions/scim_users.ts';
import { scimOperation } from './auth.ts';
import { scimBody } from './body.ts';
import { isFailure } from '../domain/scim_failure.ts';
import { scimError, scimJson } from './errors.ts';
import { filterOf, listResponse, pageOf } from './lists.ts';
import { etag, userJson, userLocation } from '../domain/scim_resources.ts';
import { SCHEMA } from '../domain/scim_schema.ts';

export const LIST_PARAMETERS = ['filter', 'startIndex', 'count', 'attributes', 'excludedAttributes'] as const;
export const ONE_PARAMETERS = ['attributes', 'excludedAttributes'] as const;

const USER_FILTERS = ['id', 'userName', 'externalId', 'displayName'] as const;

export const scimBase = (ctx: Ctx) => ctx.config.baseUrl.replace(/\/$/, '');

function settings(ctx: Ctx): LeavingSettings {
  return { breakGlass: breakGlassSubject(ctx.config.adminUser), handOverTo: ctx.config.scimHandOverTo };
}

function shown(ctx: Ctx, c: Context, user: ScimUser, status: 200 | 201 = 200): Response {
  c.header('ETag', etag(user.version));
  if (status === 201) c.header('Location', userLocation(scimBase(ctx), user.id));
  return scimJson(c, userJson(scimBase(ctx), user), status);
}

/** The `:id` of the path, when it is one Paddock could have handed out. */
function idOf(c: Context): string | undefined {
  const id = c.req.param('id') ?? '';
  return SCIM_ID.test(id) ? id : undefined;
}

/** The request's If-Match (RFC 7644 section 3.14). */
export const ifMatch = (c: Context) => readIfMatch(c.req.header('if-match'));

const noSuchUser = (c: Context) => scimError(c, { status: 404, detail: 'no such user' });

export function scimUsersList(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, LIST_PARAMETERS, async (c) => {
    const params = new URL(c.req.url).searchParams;
    const filter = filterOf(params.get('filter'), USER_FILTERS, SCHEMA.user);
    if (isFailure(filter)) return scimError(c, filter);
    const page = pageOf(params);
    if (isFailure(page)) return scimError(c, page);
    const found = filter === 'none' ? { total: 0, items: [] } : await ctx.store.scimUsers(filter, page);
    return scimJson(
      c,
      listResponse(
        found.total,
        page,
        found.items.map((u) => userJson(scimBase(ctx), u)),
      ),
    );
  });
}

export function scimUserGet(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, ONE_PARAMETERS, async (c) => {
    const id = idOf(c);
    const user = id === undefined ? undefined : await ctx.store.scimUser(id);
    return user ? shown(ctx, c, user) : noSuchUser(c);
  });
}

export function scimUserCreate(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const read = await scimBody(c);
    if (!read.ok) return scimError(c, read.failure);
    const created = await createScimUser(ctx, actor, read.body);
    return created.ok ? shown(ctx, c, created.user, 201) : scimError(c, created.failure);
  });
}

export function scimUserReplace(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const id = idOf(c);
    if (id === undefined) return noSuchUser(c);
    const read = await scimBody(c);
    if (!read.ok) return scimError(c, read.failure);
    const done = await replaceScimUser(ctx, actor, {
      id,
      body: read.body,
      settings: settings(ctx),
      ifMatch: ifMatch(c),
    });
    return done.ok ? shown(ctx, c, done.user) : scimError(c, done.failure);
  });
}

export function scimUserPatch(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const id = idOf(c);
    if (id === undefined) return noSuchUser(c);
    const read = await scimBody(c);
    if (!read.ok) return scimError(c, read.failure);
    const done = await patchScimUser(ctx, actor, { id, body: read.body, settings: settings(ctx), ifMatch: ifMatch(c) });
    return done.ok ? shown(ctx, c, done.user) : scimError(c, done.failure);
  });
}

export function scimUserDelete(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const id = idOf(c);
    if (id === undefined) return noSuchUser(c);
    const done = await deleteScimUser(ctx, actor, { id, settings: settings(ctx), ifMatch: ifMatch(c) });
    return done.ok ? c.body(null, 204) : scimError(c, done.failure);
  });
}
