/**
 * POST /devices/bulk: admin only. Form `action` (approve, reject, revoke, delete, label, unlabel or
 * owner, with `owner`: docs/contract.md section 19), one `device`
 * field per checked box and, for the label actions, `label` (`key=value` to set, `key` to remove:
 * docs/contract.md section 12, checked before any device is touched). Each device is acted on
 * exactly as alone (actions/bulk.ts), and the summary says what happened to how many, including
 * those that changed nothing. 303 to /devices, or to the list's `return` (docs/contract.md section
 * 22). The list's form posts to its confirmation step first (devices_bulk_confirm.ts); this route
 * acts on any post, as it always did.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { seeOther } from '../http/responses.ts';
import { backTo } from '../http/return_path.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { bulkDevices, bulkLabel } from '../actions/bulk.ts';
import { bulkHandOver } from '../actions/owners.ts';
import { parseOwner } from '../domain/owners.ts';
import { parseLabel, parseLabelKey } from '../domain/labels.ts';
import { setNotice } from './notice.ts';
import { actor } from './page_helpers.ts';

export function devicesBulk(ctx: Ctx): Handler<UiEnv> {
  return async function devicesBulkHandler(c) {
    const form = c.get('form');
    const action = form.get('action');
    if (
      action !== 'approve' &&
      action !== 'reject' &&
      action !== 'revoke' &&
      action !== 'delete' &&
      action !== 'label' &&
      action !== 'unlabel' &&
      action !== 'owner'
    )
      return fail(c, 'badBulkAction');
    const ids = [...new Set(form.all('device'))];
    const back = backTo(form.get('return'), '/devices');
    if (action === 'owner') {
      // docs/contract.md section 19: the owner is checked before any device is touched.
      const given = (form.get('owner') ?? '').trim();
      const owner = parseOwner(given);
      if (!owner.ok) return fail(c, 'badOwner', owner.message);
      if (ids.length === 0) return fail(c, 'noneSelected');
      const counts = await bulkHandOver(ctx, actor(c), { owner: owner.owner, ids });
      setNotice(ctx, c, { kind: 'bulk-owner', ...counts });
      return seeOther(c, back);
    }
    if (action === 'label' || action === 'unlabel') {
      const text = (form.get('label') ?? '').trim();
      const read = action === 'label' ? parseLabel(text) : parseLabelKey(text);
      if (!read.ok) return fail(c, 'badLabels', read.error);
      if (ids.length === 0) return fail(c, 'noneSelected');
      const counts =
        typeof read.value === 'string'
          ? await bulkLabel(ctx, actor(c), { action: 'unlabel', key: read.value, ids })
          : await bulkLabel(ctx, actor(c), { action: 'label', ...read.value, ids });
      setNotice(ctx, c, { kind: action === 'label' ? 'bulk-label' : 'bulk-unlabel', ...counts });
      return seeOther(c, back);
    }
    if (ids.length === 0) return fail(c, 'noneSelected');
    const counts = await bulkDevices(ctx, actor(c), { action, ids });
    setNotice(ctx, c, { kind: `bulk-${action}`, ...counts });
    return seeOther(c, back);
  };
}
