/**
 * POST /api/v1/devices/{id}/owner, JSON `{"owner": …}` (docs/contract.md section 19): admin tokens
 * only, as in the console; the device and its runs are handed over through the console's action.
 * 200 with the device; 404 outside the scope; a bad owner is a 400 problem naming it.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { handOverDevice } from '../actions/owners.ts';
import { apiOperation } from './auth.ts';
import { jsonFields } from './json_body.ts';
import { badField } from './params.ts';
import { problem } from './problem.ts';
import { deviceJson } from './resources.ts';

export function apiDeviceOwner(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'handing a device over' }, async (c, actor) => {
    const body = await jsonFields(c, { owner: 'string' }, ['owner']);
    if (!body.ok) return body.response;
    const owner = (body.fields.get('owner') ?? '').trim();
    const done = await handOverDevice(ctx, actor, { id: c.req.param('id') ?? '', owner });
    if (done.outcome === 'unknown') return problem(c, 404, 'not found', 'no such device in your scope');
    if (done.outcome === 'bad-owner') return badField(c, 'badOwner', { badOwner: 'owner' }, done.message);
    return c.json(deviceJson(done.device, ctx.clock.now() - ctx.config.staleAfterMs));
  });
}
