/**
 * POST /api/v1/devices/{id}/approve and …/reject (docs/contract.md section 16): admin tokens only, as
 * in the console, through the same actions; 204. 404 outside the scope, 409 for a device that does
 * not wait for approval.
 */
import type { Context, Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { type ApprovalOutcome, approveDevice, rejectDevice } from '../actions/approval.ts';
import { apiOperation } from './auth.ts';
import { problem } from './problem.ts';

export function apiDeviceApprove(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'approving a device' }, async (c, actor) =>
    answer(c, await approveDevice(ctx, actor, c.req.param('id') ?? '')),
  );
}

export function apiDeviceReject(ctx: Ctx): Handler<UiEnv> {
  return apiOperation(ctx, { admin: 'rejecting a device' }, async (c, actor) =>
    answer(c, await rejectDevice(ctx, actor, c.req.param('id') ?? '')),
  );
}

function answer(c: Context<UiEnv>, outcome: ApprovalOutcome): Response {
  if (outcome === 'unknown') return problem(c, 404, 'not found', 'no such device in your scope');
  if (outcome === 'not-pending') return problem(c, 409, 'conflict', 'the device is not waiting for approval');
  return c.body(null, 204);
}
