/**
 * Collection requests in the API (docs/contract.md sections 11 and 15): any token's account may
 * ask devices for a run (reaching only the devices it may see), and sees the collections it created
 * (an administrator: all), with their counts by target state and their targets, paged. Creating and
 * cancelling go through the console's actions (actions/collections.ts), so they are checked,
 * scoped, logged and audited alike; a collection the account may not see is 404, as an unknown one.
 */
import type { Context, Handler } from 'hono';
import { cancelCollection, createCollection, type CreateFailure } from '../actions/collections.ts';
import type { Actor } from '../domain/accounts.ts';
import { type Collection, COLLECTION_ID, type CollectionTarget, TARGET_STATES } from '../domain/collections.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { COLLECTION_TARGETS, COLLECTIONS } from '../lists/collections.ts';
import { parameterNames } from '../lists/parameters.ts';
import { apiOperation } from './auth.ts';
import { collectionBody } from './collection_body.ts';
import { badField, listParameters } from './params.ts';
import { problem } from './problem.ts';
import { iso, pageJson } from './resources.ts';

/** The body field each refusal of the action is about. */
const FIELD: Record<CreateFailure, string> = {
  badCollectionPrivacy: 'privacy',
  badCollectionReason: 'reason',
  badCollectionExpiresIn: 'expires_in',
  badCollectionDevices: 'devices',
  tooManyNamedDevices: 'devices',
  tooManyTargets: 'filter',
};

/** A collection as the API shows it, in the list and alone: its counts hold every state, zeros too. */
export function collectionJson(c: Collection) {
  return {
    id: c.id,
    created_by: c.createdBy,
    created_at: iso(c.createdAt),
    privacy: c.privacy,
    reason: c.reason,
    expires_at: iso(c.expiresAt),
    open: c.closedAt === null,
    closed_at: iso(c.closedAt),
    cancelled_at: iso(c.cancelledAt),
    counts: Object.fromEntries(TARGET_STATES.map((s) => [s, c.counts[s]])),
  };
}

/** A target as the API shows it: the request the device sees, its state since when, and its outcome. */
export function targetJson(t: CollectionTarget) {
  return {
    request: t.request,
    device: t.device,
    device_name: t.deviceName,
    state: t.state,
    since: iso(t.since),
    run: t.run,
    reason: t.reason,
    stderr: t.stderr,
  };
}

const noCollection = (c: Context) => problem(c, 404, 'not found', 'no such collection in your scope');

/** The collection of the path, when the account may see it. */
async function visible(ctx: Ctx, c: Context, viewer: Actor): Promise<Collection | undefined> {
  const id = c.req.param('id') ?? '';
  return COLLECTION_ID.test(id) ? ctx.store.collectionVisibleTo(viewer, id) : undefined;
}

export function apiCollectionsList(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: parameterNames(COLLECTIONS) }, async (c, viewer) => {
    const q = listParameters(c, COLLECTIONS);
    if (q instanceof Response) return q;
    const page = await ctx.store.collectionsVisibleTo(viewer, { before: q.before, limit: PAGE_SIZE }, q.state);
    return c.json(pageJson(page, collectionJson));
  });
}

/** POST /api/v1/collections: 201 with the collection, closed at once when it reached no device it can ask. */
export function apiCollectionCreate(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const body = await collectionBody(c, ctx.clock.now() - ctx.config.staleAfterMs);
    if (!body.ok) return body.response;
    const created = await createCollection(ctx, actor, body.input);
    if (!created.ok) return badField(c, created.failure, FIELD);
    c.header('Location', `/api/v1/collections/${created.collection.id}`);
    return c.json(collectionJson(created.collection), 201);
  });
}

export function apiCollectionGet(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, viewer) => {
    const collection = await visible(ctx, c, viewer);
    return collection ? c.json(collectionJson(collection)) : noCollection(c);
  });
}

export function apiCollectionTargets(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { parameters: parameterNames(COLLECTION_TARGETS) }, async (c, viewer) => {
    const q = listParameters(c, COLLECTION_TARGETS);
    if (q instanceof Response) return q;
    const collection = await visible(ctx, c, viewer);
    if (!collection) return noCollection(c);
    const page = await ctx.store.collectionTargets(
      viewer,
      collection.id,
      { before: q.before, limit: PAGE_SIZE },
      q.state,
    );
    return c.json(pageJson(page, targetJson));
  });
}

/** POST /api/v1/collections/{id}/cancel: its creator or an administrator; 200 with the collection as it is now. */
export function apiCollectionCancel(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const id = c.req.param('id') ?? '';
    if ((await cancelCollection(ctx, actor, id)) === 'unknown') return noCollection(c);
    const collection = await ctx.store.collectionVisibleTo(actor, id);
    return collection ? c.json(collectionJson(collection)) : noCollection(c);
  });
}
