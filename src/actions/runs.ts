/** Actions and queries on one run, scoped (docs/contract.md section 4) and logged with the actor and its client. */
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import type { StoredRun } from '../domain/runs.ts';
import type { Actor } from '../domain/accounts.ts';
import { actedBy, type ActionDeps } from './deps.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';

/** A run by its device and id. */
export interface RunRef {
  device: string;
  id: string;
}

/** Deletes a run in the actor's scope; false when there is none (or none it may see). */
export async function deleteRun(deps: ActionDeps<'deleteRun'>, actor: Actor, run: RunRef): Promise<boolean> {
  const { device, id } = run;
  const fields = { ...actedBy(actor), device, run: id };
  const deleted =
    DEVICE_ID.test(device) &&
    RUN_ID.test(id) &&
    (await deps.store.deleteRun(actor, device, id, note(EVENTS.runDeleted, fields, deps.clock.now())));
  if (deleted) await deps.logger.emit(EVENTS.runDeleted, fields);
  return deleted;
}

/**
 * The run to download (docs/contract.md section 10), logged and so audited, or undefined outside the
 * actor's scope. Its bytes are read as the door sends them (http/download.ts).
 */
export async function downloadRun(
  deps: ActionDeps<'runVisibleTo'>,
  actor: Actor,
  run: RunRef,
): Promise<StoredRun | undefined> {
  const { device, id } = run;
  const found =
    DEVICE_ID.test(device) && RUN_ID.test(id) ? await deps.store.runVisibleTo(actor, device, id) : undefined;
  if (!found) return undefined;
  await deps.logger.emit(EVENTS.runDownloaded, { ...actedBy(actor), device, run: id });
  return found;
}
