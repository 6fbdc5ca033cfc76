/**
 * Labelling a device (docs/contract.md section 12): the owner or an admin replaces its set (the
 * device page) or sets and removes some (the API, the bulk actions). The device is found in the
 * actor's scope first, then the door's reading of the labels and every label are checked, then the store changes them in one
 * transaction; a refusal names the label and changes nothing. A change that changed something is
 * logged and audited as `device.labelled` with the keys changed.
 */
import type { Actor } from '../domain/accounts.ts';
import type { LabelledDevice } from '../domain/devices.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { conflictingChange, labelSet, parseLabelKey, type Labels, type LabelsRead } from '../domain/labels.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';
import type { LabelChange } from '../store/labels.ts';
import { actedBy, type ActionDeps } from './deps.ts';

export type LabelOutcome =
  { ok: true; device: LabelledDevice; changed: string[] } | { ok: false; error: string } | 'unknown';

export async function labelDevice(
  deps: ActionDeps<'deviceVisibleTo' | 'changeLabels'>,
  actor: Actor,
  input: { id: string; change: LabelsRead<LabelChange> },
): Promise<LabelOutcome> {
  const { id } = input;
  const device = DEVICE_ID.test(id) ? await deps.store.deviceVisibleTo(actor, id) : undefined;
  if (!device) return 'unknown';
  // What the door could not read is refused only now: outside the scope, a device is not found.
  if (!input.change.ok) return input.change;
  const change = input.change.value;
  const error = changeError(change);
  if (error !== undefined) return { ok: false, error };
  const fields = (changed: readonly string[]) => ({ ...actedBy(actor), device: id, keys: changed.join(',') });
  // The webhooks' message commits with the change (docs/contract.md section 13).
  const at = deps.clock.now();
  const out = await deps.store.changeLabels(actor, id, change, (changed) =>
    note(EVENTS.deviceLabelled, fields(changed), at),
  );
  if (out.outcome === 'unknown') return 'unknown';
  if (out.outcome === 'refused') return { ok: false, error: out.error };
  if (out.changed.length > 0) await deps.logger.emit(EVENTS.deviceLabelled, fields(out.changed));
  return { ok: true, device: { ...device, labels: out.labels }, changed: out.changed };
}

/** Every label of a change checked again here, whichever door built it: the error naming the first bad one. */
function changeError(change: LabelChange): string | undefined {
  for (const labels of [change.replace, change.set]) {
    const read = labels === undefined ? undefined : labelSet(Object.entries(labels as Labels));
    if (read && !read.ok) return read.error;
  }
  for (const key of change.remove ?? []) {
    const read = parseLabelKey(key);
    if (!read.ok) return read.error;
  }
  return conflictingChange(change.set ?? {}, change.remove ?? []);
}
