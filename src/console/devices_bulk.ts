/**
 * POST /devices/bulk: admin only. Form `action` (revoke or delete) and one `device` field per
 * checked box; each device is acted on exactly as alone (actions/bulk.ts), and the summary says
 * what happened to how many, including those that changed nothing. 303 to /devices.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { bulkDevices } from '../actions/bulk.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function devicesBulk(ctx: Ctx): Handler<UiEnv> {
  return async function devicesBulkHandler(c) {
    const form = c.get('form');
    const action = form.get('action');
    if (action !== 'revoke' && action !== 'delete') return fail(c, 'badBulkAction');
    const ids = [...new Set(form.all('device'))];
    if (ids.length === 0) return fail(c, 'noneSelected');
    const counts = await bulkDevices(ctx, actor(c), { action, ids });
    setNotice(ctx, c, { kind: action === 'revoke' ? 'bulk-revoke' : 'bulk-delete', ...counts });
    return seeOther(c, '/devices');
  };
}
