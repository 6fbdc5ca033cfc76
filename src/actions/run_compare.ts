/**
 * Comparing two runs (docs/contract.md section 21), the query every door calls: both runs in the
 * viewer's scope or neither is shown, then both read (at most COMPARE_LIMIT bytes each) and diffed
 * when both are text. The path's run is the old side, `with` the new one.
 */
import type { Viewer } from '../domain/accounts.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { readUpTo, utf8Text } from '../domain/run_bytes.ts';
import { COMPARE_LIMIT, diffTexts, type RunDiff } from '../domain/run_diff.ts';
import type { StoredRun } from '../domain/runs.ts';
import type { ActionDeps } from './deps.ts';
import type { RunRef } from './runs.ts';

/** Why a run cannot be compared: larger than COMPARE_LIMIT, or not valid UTF-8. */
export type NotComparable = 'too-big' | 'binary';

export type Comparison =
  | { outcome: 'not-found' }
  | {
      outcome: 'not-comparable';
      old: StoredRun;
      new: StoredRun;
      /** Each side's reason, undefined for a side that could be compared. */
      why: { old: NotComparable | undefined; new: NotComparable | undefined };
    }
  | { outcome: 'compared'; old: StoredRun; new: StoredRun; diff: RunDiff };

/** `DEVICE/ID` (the `with` parameter) as a run reference, or undefined when it is not one. */
export function parseRunRef(text: string): RunRef | undefined {
  const at = text.indexOf('/');
  const device = text.slice(0, at);
  const id = text.slice(at + 1);
  return at > 0 && DEVICE_ID.test(device) && RUN_ID.test(id) ? { device, id } : undefined;
}

/** The run's text, or why it has none to compare. */
async function textOf(run: StoredRun): Promise<{ text: string } | { why: NotComparable }> {
  const bytes = await readUpTo(run, COMPARE_LIMIT);
  if (bytes === undefined) return { why: 'too-big' };
  const text = utf8Text(bytes);
  return text === undefined ? { why: 'binary' } : { text };
}

/** Not logged: a comparison shows what the run view shows, and the run view is not audited either. */
export async function compareRuns(
  deps: Pick<ActionDeps<'runVisibleTo'>, 'store'>,
  viewer: Viewer,
  oldRef: RunRef,
  newRef: RunRef,
): Promise<Comparison> {
  const visible = ({ device, id }: RunRef) =>
    DEVICE_ID.test(device) && RUN_ID.test(id) ? deps.store.runVisibleTo(viewer, device, id) : undefined;
  const [oldRun, newRun] = await Promise.all([visible(oldRef), visible(newRef)]);
  if (!oldRun || !newRun) return { outcome: 'not-found' };
  return inTurn(async () => {
    // A run larger than the limit is refused before any of it is read.
    const [oldText, newText] = await Promise.all([textOf(oldRun), textOf(newRun)]);
    if ('why' in oldText || 'why' in newText) {
      const why = { old: 'why' in oldText ? oldText.why : undefined, new: 'why' in newText ? newText.why : undefined };
      return { outcome: 'not-comparable', old: oldRun, new: newRun, why };
    }
    return { outcome: 'compared', old: oldRun, new: newRun, diff: diffTexts(oldText.text, newText.text) };
  });
}

/**
 * Comparisons that hold their runs' text at once, per process: each holds up to two runs of
 * COMPARE_LIMIT bytes and their lines (about 15 MiB), so the rest wait their turn, holding nothing,
 * and the heap stays bounded however many are asked for at once.
 */
export const COMPARES_AT_ONCE = 2;
let comparing = 0;
const waiting: Array<() => void> = [];

async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  // A finished comparison hands its turn straight to the next waiting, so the count never overshoots.
  if (comparing < COMPARES_AT_ONCE) comparing++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else comparing--;
  }
}
