/**
 * /scim/v2/Groups (RFC 7644 section 3; docs/contract.md sections 19 and 20): as users.ts, over
 * the group actions (actions/scim_groups.ts). A list or a group asked with
 * `excludedAttributes=members` (as Entra ID asks) reads no member.
 */
import type { Context, Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { SCIM_ID, type ScimGroup } from '../domain/scim.ts';
import { createScimGroup, deleteScimGroup, patchScimGroup, replaceScimGroup } from '../actions/scim_groups.ts';
import { scimOperation } from './auth.ts';
import { scimBody } from './body.ts';
import { isFailure } from '../domain/scim_failure.ts';
import { scimError, scimJson } from './errors.ts';
import { filterOf, listResponse, pageOf } from './lists.ts';
import { etag, groupJson, groupLocation } from '../domain/scim_resources.ts';
import { SCHEMA } from '../domain/scim_schema.ts';
import { ifMatch, LIST_PARAMETERS, ONE_PARAMETERS, scimBase } from './users.ts';

const GROUP_FILTERS = ['id', 'displayName', 'externalId'] as const;

/** Whether the answer shows members: not when excluded, nor when `attributes` lists others only. */
function withMembers(params: URLSearchParams): boolean {
  const names = (p: string | null) => (p ?? '').split(',').map((n) => n.trim().toLowerCase());
  if (names(params.get('excludedAttributes')).includes('members')) return false;
  const attributes = params.get('attributes');
  return attributes === null || names(attributes).includes('members');
}

function shown(ctx: Ctx, c: Context, group: ScimGroup, status: 200 | 201 = 200): Response {
  c.header('ETag', etag(group.version));
  if (status === 201) c.header('Location', groupLocation(scimBase(ctx), group.id));
  return scimJson(c, groupJson(scimBase(ctx), group), status);
}

function idOf(c: Context): string | undefined {
  const id = c.req.param('id') ?? '';
  return SCIM_ID.test(id) ? id : undefined;
}

const noSuchGroup = (c: Context) => scimError(c, { status: 404, detail: 'no such group' });

export function scimGroupsList(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, LIST_PARAMETERS, async (c) => {
    const params = new URL(c.req.url).searchParams;
    const filter = filterOf(params.get('filter'), GROUP_FILTERS, SCHEMA.group);
    if (isFailure(filter)) return scimError(c, filter);
    const page = pageOf(params);
    if (isFailure(page)) return scimError(c, page);
    const found =
      filter === 'none' ? { total: 0, items: [] } : await ctx.store.scimGroups(filter, page, withMembers(params));
    return scimJson(
      c,
      listResponse(
        found.total,
        page,
        found.items.map((g) => groupJson(scimBase(ctx), g)),
      ),
    );
  });
}

export function scimGroupGet(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, ONE_PARAMETERS, async (c) => {
    const id = idOf(c);
    const group =
      id === undefined ? undefined : await ctx.store.scimGroup(id, withMembers(new URL(c.req.url).searchParams));
    return group ? shown(ctx, c, group) : noSuchGroup(c);
  });
}

export function scimGroupCreate(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const read = await scimBody(c);
    if (!read.ok) return scimError(c, read.failure);
    const created = await createScimGroup(ctx, actor, read.body);
    return created.ok ? shown(ctx, c, created.group, 201) : scimError(c, created.failure);
  });
}

export function scimGroupReplace(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const id = idOf(c);
    if (id === undefined) return noSuchGroup(c);
    const read = await scimBody(c);
    if (!read.ok) return scimError(c, read.failure);
    const done = await replaceScimGroup(ctx, actor, { id, body: read.body, ifMatch: ifMatch(c) });
    return done.ok ? shown(ctx, c, done.group) : scimError(c, done.failure);
  });
}

export function scimGroupPatch(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const id = idOf(c);
    if (id === undefined) return noSuchGroup(c);
    const read = await scimBody(c);
    if (!read.ok) return scimError(c, read.failure);
    const done = await patchScimGroup(ctx, actor, { id, body: read.body, ifMatch: ifMatch(c) });
    return done.ok ? shown(ctx, c, done.group) : scimError(c, done.failure);
  });
}

export function scimGroupDelete(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c, actor) => {
    const id = idOf(c);
    if (id === undefined) return noSuchGroup(c);
    const done = await deleteScimGroup(ctx, actor, id, ifMatch(c));
    return done.ok ? c.body(null, 204) : scimError(c, done.failure);
  });
}
