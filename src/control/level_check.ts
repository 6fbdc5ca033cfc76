/**
 * The level check (docs/contract.md section 10): every `redacted` or `minimal` run is run through the device
 * client's own rules (domain/redaction.ts) as it is stored, and the counts per rule of what they
 * would still remove are recorded on the run (never the text they match; the bytes never change).
 *
 * A small run is counted from the bytes the upload already holds, right after it is stored and
 * the answer is on its way; its record is written without holding up the answer. A large one is not counted on the request path:
 * it joins a small queue, bounded, worked one run at a time, that reads the stored run back a chunk
 * at a time and counts it in segments cut at line ends. A queue that is full, a failure, or a stop
 * or restart leaves the run unchecked (findings NULL), which the run view says; nothing re-checks it
 * yet (a later sweep or startup could pick up runs whose findings are NULL).
 */
import type { PrivacyLevel } from '../domain/privacy.ts';
import { countFindings, type Findings } from '../domain/redaction.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';
import { EVENTS } from '../events/catalogue.ts';
import { note } from '../events/note.ts';

/** Runs up to this size are counted from the upload's bytes at once; larger ones are queued. */
export const SMALL_RUN = 256 * 1024;
/** Large runs waiting: beyond this, a run is left unchecked rather than held in memory or delayed. */
export const QUEUE_LIMIT = 64;
/**
 * Text counted at once when a large run is read back: segments end at a line end past this length,
 * so that one step holds the event loop for milliseconds (tens on adversarial text), and requests
 * run between steps while the next chunk is read.
 */
export const SEGMENT = 256 * 1024;

/** What the upload hands over after putRun answered 'stored'. */
export interface StoredUpload {
  device: string;
  id: string;
  privacy: PrivacyLevel;
  /** The device's owner, for run.flagged (unknown for a run found unchecked after a restart). */
  owner?: string;
  body: Uint8Array;
}

export interface LevelCheck {
  /** A run just stored: checked now when small, queued when large; `full` runs are not checked. */
  stored(run: StoredUpload): void;
  /** Resolves when every check begun so far has been recorded (tests; a stop). */
  idle(): Promise<void>;
  /**
   * Checks the redacted and minimal runs left unchecked (a full queue, a failure, a restart), oldest
   * first, one at a time, at most `limit` of them; how many it checked.
   */
  backfill(limit?: number): Promise<number>;
  /** Takes no new runs; waits for the run being checked, drops the rest (they stay unchecked). */
  stop(): Promise<void>;
}

/** The checker reads runs as the system does, whatever their owner. */
const SYSTEM = { subject: 'system', admin: true };

export function levelCheck(deps: { store: Store; logger: Logger }): LevelCheck {
  const queue: Array<Omit<StoredUpload, 'body'>> = [];
  const pending = new Set<Promise<void>>();
  let working: Promise<void> | undefined;
  let stopped = false;

  function track(p: Promise<void>): void {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  }

  async function record(run: Omit<StoredUpload, 'body'>, findings: Findings): Promise<void> {
    try {
      const flagged = Object.values(findings).some((n) => n > 0);
      const fields = { account: run.owner ?? '', device: run.device, run: run.id, privacy: run.privacy };
      // run.flagged's webhook message commits with the finding.
      const flag = flagged ? note(EVENTS.runFlagged, fields, Date.now()) : undefined;
      if ((await deps.store.recordLevelCheck(run.device, run.id, findings, flag)) && flagged)
        await deps.logger.emit(EVENTS.runFlagged, fields);
    } catch (err) {
      failed(run, err);
    }
  }

  function failed(run: Omit<StoredUpload, 'body'>, err: unknown): void {
    deps.logger.emit(EVENTS.levelCheckFailed, {
      device: run.device,
      run: run.id,
      error: (err as Error).message,
    });
  }

  async function checkStored(run: Omit<StoredUpload, 'body'>): Promise<void> {
    try {
      const stored = await deps.store.runVisibleTo(SYSTEM, run.device, run.id);
      // Deleted meanwhile: nothing to record.
      if (stored) await record(run, await countStream(stored.read(), run.privacy));
    } catch (err) {
      failed(run, err);
    }
  }

  async function work(): Promise<void> {
    for (let run = queue.shift(); run !== undefined && !stopped; run = queue.shift()) await checkStored(run);
    working = undefined;
  }

  return {
    stored(run) {
      if (stopped || run.privacy === 'full') return;
      if (run.body.byteLength <= SMALL_RUN) {
        // Counted on the next turn of the event loop: the upload's answer is not held for it.
        const { body, privacy } = run;
        const counted = new Promise<Findings>((resolve) =>
          setImmediate(() => resolve(countFindings(new TextDecoder('utf-8', { fatal: false }).decode(body), privacy))),
        );
        track(counted.then((findings) => record(run, findings)));
        return;
      }
      if (queue.length >= QUEUE_LIMIT) {
        deps.logger.emit(EVENTS.levelCheckSkipped, { device: run.device, run: run.id, queued: queue.length });
        return;
      }
      // Only the run's name waits in the queue: its bytes are read back from the store.
      queue.push({ device: run.device, id: run.id, privacy: run.privacy });
      if (!working) {
        working = work();
        track(working);
      }
    },
    async idle() {
      while (pending.size > 0) await Promise.all([...pending]);
    },
    async backfill(limit = 10_000) {
      let after = 0;
      let checked = 0;
      // Keyset by seq: a run whose check fails is not tried again in the same pass.
      while (!stopped && checked < limit) {
        const batch = await deps.store.uncheckedRuns(after, Math.min(100, limit - checked));
        if (batch.length === 0) break;
        for (const run of batch) {
          if (stopped) break;
          await checkStored(run);
          after = run.seq;
          checked++;
        }
      }
      return checked;
    },
    async stop() {
      stopped = true;
      queue.length = 0;
      await this.idle();
    },
  };
}

/**
 * The findings of a stored run read a chunk at a time: the text is counted in segments of at least
 * SEGMENT characters cut after a line end (or at four times SEGMENT on a line that long), so memory
 * stays bounded whatever the run. A JSON value that spans a cut is counted on each side. At
 * `minimal`, a run longer than one segment cannot be a summary the device client writes (those are
 * short): `summary` counts 1 and the redaction rules count the rest.
 */
export async function countStream(chunks: AsyncIterable<Uint8Array>, level: PrivacyLevel): Promise<Findings> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const findings: Findings = {};
  let carry = '';
  let segments = 0;
  const count = (text: string, at: PrivacyLevel) => {
    segments++;
    for (const [rule, n] of Object.entries(countFindings(text, at)))
      findings[rule as keyof Findings] = (findings[rule as keyof Findings] ?? 0) + n;
  };
  for await (const chunk of chunks) {
    carry += decoder.decode(chunk, { stream: true });
    if (carry.length < SEGMENT) continue;
    const end = carry.lastIndexOf('\n');
    const cut = end >= 0 ? end + 1 : carry.length >= 4 * SEGMENT ? carry.length : 0;
    if (cut === 0) continue;
    count(carry.slice(0, cut), level === 'full' ? 'full' : 'redacted');
    carry = carry.slice(cut);
  }
  carry += decoder.decode();
  if (segments === 0) return countFindings(carry, level);
  if (carry !== '') count(carry, level === 'full' ? 'full' : 'redacted');
  if (level === 'minimal') findings.summary = (findings.summary ?? 0) + 1;
  return findings;
}
