/**
 * Single devices and runs in the API (docs/contract.md section 11), scoped as the console is (404 outside
 * the scope, exactly as for one that does not exist), as JSON in the shapes of the lists. Every
 * write goes through the same action as the console's (src/actions), so it is checked, scoped,
 * logged and audited alike.
 */
import type { Handler } from 'hono';
import { deviceStatus, type LabelledDevice } from '../domain/devices.ts';
import { parseLabelLines } from '../domain/labels.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import type { Page } from '../domain/paging.ts';
import type { RunSummary } from '../domain/runs.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deleteDevice, renameDevice, revokeDevice } from '../actions/devices.ts';
import { labelDevice } from '../actions/labels.ts';
import { deleteRun, downloadRun } from '../actions/runs.ts';
import { runDownloadResponse } from '../http/download.ts';
import { apiOperation } from './auth.ts';
import { jsonFields } from './json_body.ts';
import { badField } from './params.ts';
import { problem } from './problem.ts';

export const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A device as the API shows it, in the list and alone. */
export function deviceJson(d: LabelledDevice, staleBefore: number) {
  return {
    id: d.id,
    name: d.name,
    owner: d.owner,
    status: deviceStatus(d, staleBefore),
    pending_reason: d.pendingReason,
    enrolled_at: iso(d.enrolledAt),
    enrolled_from: d.enrolledFrom,
    last_seen_at: iso(d.lastSeenAt),
    last_upload_at: iso(d.lastUploadAt),
    revoked_at: iso(d.revokedAt),
    max_privacy: d.maxPrivacy,
    labels: { ...d.labels },
    facts: { ...d.facts },
    facts_reported_at: iso(d.factsReportedAt),
  };
}

/** A run as the API shows it, in the list and alone. */
export function runJson(r: RunSummary) {
  return {
    device: r.device,
    id: r.id,
    content_type: r.contentType,
    privacy: r.privacy,
    size: r.size,
    uploaded_at: new Date(r.uploadedAt).toISOString(),
    flagged: r.flagged,
  };
}

/** A page of a list as the API shows it: its items, and `next` (the cursor) unless it is the last. */
export function pageJson<T, J>(page: Page<T>, item: (t: T) => J): { items: J[]; next?: string } {
  return { items: page.items.map(item), ...(page.next === undefined ? {} : { next: page.next }) };
}

const noDevice = 'no such device in your scope';
const noRun = 'no such run in your scope';

export function apiDeviceGet(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, viewer) => {
    const id = c.req.param('id') ?? '';
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(viewer, id) : undefined;
    if (!device) return problem(c, 404, 'not found', noDevice);
    return c.json(deviceJson(device, ctx.clock.now() - ctx.config.staleAfterMs));
  });
}

/** POST /api/v1/devices/{id}/rename, JSON `{"name": …}`: the owner or an admin; 200 with the device. */
export function apiDeviceRename(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const body = await jsonFields(c, { name: 'string' }, ['name']);
    if (!body.ok) return body.response;
    const id = c.req.param('id') ?? '';
    const renamed = await renameDevice(ctx, actor, { id, name: (body.fields.get('name') ?? '').trim() });
    if (renamed === 'bad-name') return badField(c, 'badDeviceName', { badDeviceName: 'name' });
    if (renamed === 'unknown') return problem(c, 404, 'not found', noDevice);
    return c.json(deviceJson(renamed, ctx.clock.now() - ctx.config.staleAfterMs));
  });
}

/**
 * POST /api/v1/devices/{id}/labels, JSON `{"set": {"k": "v"}, "remove": ["k"]}` (either may be
 * left out; docs/contract.md section 12): the owner or an admin; 200 with the device. A bad label
 * is a 400 problem naming it and its field, and nothing changes.
 */
export function apiDeviceLabels(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const body = await jsonFields(c, { set: 'labels', remove: 'keys' });
    if (!body.ok) return body.response;
    // Each field was checked and handed on as a form's lines: these readings cannot fail.
    const set = parseLabelLines(body.fields.get('set') ?? '');
    const remove = (body.fields.get('remove') ?? '').split('\n').filter((k) => k !== '');
    const change = set.ok ? { ok: true as const, value: { set: set.value, remove } } : set;
    const labelled = await labelDevice(ctx, actor, { id: c.req.param('id') ?? '', change });
    if (labelled === 'unknown') return problem(c, 404, 'not found', noDevice);
    if (!labelled.ok) return problem(c, 400, 'bad field', labelled.error, { field: labelField(labelled.error) });
    return c.json(deviceJson(labelled.device, ctx.clock.now() - ctx.config.staleAfterMs));
  });
}

/** The field a refused change names: `remove` when a removal is at fault, else `set`. */
function labelField(error: string): string {
  return / is both set and removed$/.test(error) ? 'remove' : 'set';
}

/** POST /api/v1/devices/{id}/revoke: admin tokens only, as in the console; 204. */
export function apiDeviceRevoke(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'revoking a device' }, async (c, actor) => {
    const outcome = await revokeDevice(ctx, actor, c.req.param('id') ?? '');
    if (outcome === 'unknown') return problem(c, 404, 'not found', noDevice);
    return c.body(null, 204);
  });
}

/** POST /api/v1/devices/{id}/delete: admin tokens only; the device must be revoked first (409); 204. */
export function apiDeviceDelete(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'deleting a device' }, async (c, actor) => {
    const outcome = await deleteDevice(ctx, actor, c.req.param('id') ?? '');
    if (outcome === 'unknown') return problem(c, 404, 'not found', noDevice);
    if (outcome === 'not-revoked') return problem(c, 409, 'conflict', 'revoke the device before deleting it');
    return c.body(null, 204);
  });
}

export function apiRunGet(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, viewer) => {
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    const run =
      DEVICE_ID.test(device) && RUN_ID.test(id) ? await ctx.store.runVisibleTo(viewer, device, id) : undefined;
    if (!run) return problem(c, 404, 'not found', noRun);
    return c.json(runJson(run));
  });
}

/** DELETE /api/v1/runs/{device}/{id}: within the token's scope, as in the console; 204. */
export function apiRunDelete(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const deleted = await deleteRun(ctx, actor, { device: c.req.param('device') ?? '', id: c.req.param('id') ?? '' });
    if (!deleted) return problem(c, 404, 'not found', noRun);
    return c.body(null, 204);
  });
}

/** GET /api/v1/runs/{device}/{id}/raw: the stored bytes, as the console's download (docs/contract.md section 10). */
export function apiRunRaw(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, {}, async (c, actor) => {
    const run = await downloadRun(ctx, actor, { device: c.req.param('device') ?? '', id: c.req.param('id') ?? '' });
    return run ? runDownloadResponse(c, run) : problem(c, 404, 'not found', noRun);
  });
}
