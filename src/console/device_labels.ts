/**
 * POST /devices/{id}/labels: the device's owner or an admin; form `labels`, one `key=value` a line
 * (docs/contract.md section 12), which replaces the device's set; 303 to the device. A bad line
 * changes nothing and is answered 400 with the device page, the set as sent and the label at fault
 * named beside it (section 22).
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { labelDevice } from '../actions/labels.ts';
import { parseLabelLines } from '../domain/labels.ts';
import { deviceAnswer } from './device_show.ts';
import { setNotice } from './notice.ts';
import { actor, refusedForm } from './page_helpers.ts';

export function deviceLabels(ctx: Ctx): Handler<UiEnv> {
  return async function deviceLabelsHandler(c) {
    const id = c.req.param('id') ?? '';
    const read = parseLabelLines(c.get('form').get('labels') ?? '');
    const change = read.ok ? { ok: true as const, value: { replace: read.value } } : read;
    const labelled = await labelDevice(ctx, actor(c), { id, change });
    if (labelled === 'unknown') return fail(c, 'deviceNotFound');
    if (!labelled.ok)
      return deviceAnswer(ctx, c, id, { refused: refusedForm(c, 'labels', 'badLabels', labelled.error) }, 400);
    setNotice(ctx, c, { kind: 'labelled', device: id });
    return seeOther(c, `/devices/${encodeURIComponent(id)}`);
  };
}
