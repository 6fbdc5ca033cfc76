/**
 * POST /devices/{id}/approve and POST /devices/{id}/reject (docs/contract.md section 16): admin only.
 * An approved device may do what any device does; a rejected one is revoked. 409 for a device that
 * does not wait for approval; 303 to the device, or to the device list's `return` when one came with the
 * form (docs/contract.md section 22). Reject is confirmed first: GET /devices/{id}/reject
 * (device_reject_confirm.ts).
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { approveDevice, rejectDevice } from '../actions/approval.ts';
import { devicePath } from '../views/devices.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function deviceApprove(ctx: Ctx): Handler<UiEnv> {
  return async function deviceApproveHandler(c) {
    const id = c.req.param('id') ?? '';
    const outcome = await approveDevice(ctx, actor(c), id);
    if (outcome === 'unknown') return fail(c, 'deviceNotFound');
    if (outcome === 'not-pending') return fail(c, 'deviceNotPending');
    setNotice(ctx, c, { kind: 'approved', device: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/devices', devicePath(id)));
  };
}

export function deviceReject(ctx: Ctx): Handler<UiEnv> {
  return async function deviceRejectHandler(c) {
    const id = c.req.param('id') ?? '';
    const outcome = await rejectDevice(ctx, actor(c), id);
    if (outcome === 'unknown') return fail(c, 'deviceNotFound');
    if (outcome === 'not-pending') return fail(c, 'deviceNotPending');
    setNotice(ctx, c, { kind: 'rejected', device: id });
    return seeOther(c, backTo(c.get('form').get('return'), '/devices', devicePath(id)));
  };
}
