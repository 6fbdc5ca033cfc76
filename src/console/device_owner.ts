/**
 * POST /devices/{id}/owner: admin only (docs/contract.md section 19). Form `owner`, a subject or
 * `group:<name>`; the device and its runs are handed over, audited as device.owner_changed. 303
 * to the device; a device out of scope is 404; a bad owner is answered 400 with the device page,
 * the form as sent and the owner named beside it (section 22).
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { handOverDevice } from '../actions/owners.ts';
import { deviceAnswer } from './device_show.ts';
import { setNotice } from './notice.ts';
import { actor, refusedForm } from './page_helpers.ts';

export function deviceOwner(ctx: Ctx): Handler<UiEnv> {
  return async function deviceOwnerHandler(c) {
    const id = c.req.param('id') ?? '';
    const owner = (c.get('form').get('owner') ?? '').trim();
    const done = await handOverDevice(ctx, actor(c), { id, owner });
    if (done.outcome === 'unknown') return fail(c, 'deviceNotFound');
    // The message names the owner given (domain/owners.ts).
    if (done.outcome === 'bad-owner')
      return deviceAnswer(ctx, c, id, { refused: refusedForm(c, 'owner', 'badOwner', done.message) }, 400);
    setNotice(ctx, c, { kind: done.outcome === 'done' ? 'owner-changed' : 'owner-unchanged', device: id });
    return seeOther(c, `/devices/${encodeURIComponent(id)}`);
  };
}
