/**
 * POST /devices/bulk: admin only. Form `action` (revoke or delete) and one `device` field per
 * checked box; each device is acted on exactly as alone (fleet_actions.ts), and the summary says
 * what happened to how many, including those that changed nothing. 303 to /devices.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { deleteDevice, revokeDevice } from '../actions/fleet.ts';
import { type BulkCounts, setNotice } from './notice.ts';
import { viewer } from './page_helpers.ts';

export function devicesBulk(ctx: Ctx): Handler<UiEnv> {
  return async function devicesBulkHandler(c) {
    const form = c.get('form');
    const action = form.get('action');
    if (action !== 'revoke' && action !== 'delete') return fail(c, 'badBulkAction');
    const ids = [...new Set(form.all('device'))];
    if (ids.length === 0) return fail(c, 'noneSelected');
    const v = viewer(c);
    const counts: BulkCounts = { done: 0, unchanged: 0, notRevoked: 0, unknown: 0 };
    // One at a time, in the order checked: each item is its own logged action.
    for (const id of ids) {
      if (action === 'revoke') {
        const outcome = await revokeDevice(ctx, c, v, id);
        counts[outcome === 'revoked' ? 'done' : outcome === 'already-revoked' ? 'unchanged' : 'unknown']++;
      } else {
        const outcome = await deleteDevice(ctx, c, v, id);
        counts[outcome === 'deleted' ? 'done' : outcome === 'not-revoked' ? 'notRevoked' : 'unknown']++;
      }
    }
    setNotice(ctx, c, { kind: action === 'revoke' ? 'bulk-revoke' : 'bulk-delete', ...counts });
    return seeOther(c, '/devices');
  };
}
