/**
 * Single resources of the API (CONTRACT section 11): GET /api/v1/devices/{id} and
 * GET /api/v1/runs/{device}/{id}, scoped as the console is (404 outside the scope, exactly as for
 * one that does not exist), as JSON in the shapes of the lists.
 */
import type { Handler } from 'hono';
import { deviceStatus } from '../domain/device_status.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import type { Device, RunSummary } from '../store/store.ts';
import type { Ctx, UiEnv } from '../ui/deps.ts';
import { deleteRun, revokeDevice } from '../ui/fleet_actions.ts';
import { apiViewer } from './auth.ts';
import { strictParameters } from './params.ts';
import { problem } from './problem.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A device as the API shows it, in the list and alone. */
export function deviceJson(d: Device, staleBefore: number) {
  return {
    id: d.id,
    name: d.name,
    owner: d.owner,
    status: deviceStatus(d, staleBefore),
    enrolled_at: iso(d.enrolledAt),
    last_seen_at: iso(d.lastSeenAt),
    last_upload_at: iso(d.lastUploadAt),
    revoked_at: iso(d.revokedAt),
    max_privacy: d.maxPrivacy,
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

export function apiDeviceGet(ctx: Ctx): Handler<UiEnv> {
  return async function apiDeviceGetHandler(c) {
    const viewer = await apiViewer(ctx, c);
    if (viewer instanceof Response) return viewer;
    const strict = strictParameters(c, []);
    if (strict) return strict;
    const id = c.req.param('id') ?? '';
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(viewer, id) : undefined;
    if (!device) return problem(c, 404, 'not found', 'no such device in your scope');
    c.header('Cache-Control', 'no-store');
    return c.json(deviceJson(device, ctx.clock.now() - ctx.config.staleAfterMs));
  };
}

export function apiRunGet(ctx: Ctx): Handler<UiEnv> {
  return async function apiRunGetHandler(c) {
    const viewer = await apiViewer(ctx, c);
    if (viewer instanceof Response) return viewer;
    const strict = strictParameters(c, []);
    if (strict) return strict;
    const device = c.req.param('device') ?? '';
    const id = c.req.param('id') ?? '';
    const run =
      DEVICE_ID.test(device) && RUN_ID.test(id) ? await ctx.store.runVisibleTo(viewer, device, id) : undefined;
    if (!run) return problem(c, 404, 'not found', 'no such run in your scope');
    c.header('Cache-Control', 'no-store');
    return c.json(runJson(run));
  };
}

/** POST /api/v1/devices/{id}/revoke: admin tokens only, as in the console; 204, logged and audited. */
export function apiDeviceRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function apiDeviceRevokeHandler(c) {
    const viewer = await apiViewer(ctx, c);
    if (viewer instanceof Response) return viewer;
    const strict = strictParameters(c, []);
    if (strict) return strict;
    if (!viewer.admin) {
      ctx.logger.log('warn', 'access.admin_refused', { account: viewer.subject, path: c.req.path });
      return problem(c, 403, 'forbidden', 'revoking a device needs a token of an administrator account');
    }
    const outcome = await revokeDevice(ctx, c, viewer, c.req.param('id') ?? '');
    if (outcome === 'unknown') return problem(c, 404, 'not found', 'no such device in your scope');
    return c.body(null, 204);
  };
}

/** DELETE /api/v1/runs/{device}/{id}: within the token's scope, as in the console; 204, logged and audited. */
export function apiRunDelete(ctx: Ctx): Handler<UiEnv> {
  return async function apiRunDeleteHandler(c) {
    const viewer = await apiViewer(ctx, c);
    if (viewer instanceof Response) return viewer;
    const strict = strictParameters(c, []);
    if (strict) return strict;
    const deleted = await deleteRun(ctx, c, viewer, c.req.param('device') ?? '', c.req.param('id') ?? '');
    if (!deleted) return problem(c, 404, 'not found', 'no such run in your scope');
    return c.body(null, 204);
  };
}
