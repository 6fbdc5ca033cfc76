/** Runs: what a device uploads, as stored and as listed (docs/contract.md sections 6 and 10). */
import type { PrivacyLevel } from './privacy.ts';
import type { Receipt } from './receipt.ts';
import type { Findings } from './redaction.ts';
import type { TextQuery } from './words.ts';

/** The largest run an upload may carry (docs/contract.md section 5: above it, 413). */
export const RUN_LIMIT = 16 * 1024 * 1024;

export interface RunSummary {
  device: string;
  id: string;
  contentType: string;
  privacy: PrivacyLevel;
  size: number;
  uploadedAt: number;
  /** The level check found something the rules of the run's level would remove (docs/contract.md section 10). */
  flagged: boolean;
}

/** A run as uploaded, whole: what putRun stores. */
export interface Run extends Omit<RunSummary, 'flagged'> {
  body: Uint8Array;
  /** What the device says it removed (its X-Redaction-Receipt); absent when it sent none. */
  receipt?: Receipt | undefined;
  /**
   * The credential_version the upload's credential lookup read (docs/contract.md section 16): the
   * run is stored only while the device's is still that, else it is refused as for a revoked
   * device. Absent (the store's own callers, which looked nothing up): not checked.
   */
  credentialVersion?: number | undefined;
}

/** A stored run: its bytes are read a chunk at a time, so a 16 MiB run is never held whole. */
export interface StoredRun extends RunSummary {
  /** The level check's counts per rule; null until the run is checked (full runs never are). */
  findings: Findings | null;
  /** The device's receipt of what it removed, or null when it sent none. */
  receipt: Receipt | null;
  /** Its device's name, when the device is still stored. */
  deviceName?: string | undefined;
  /** The collection (its id) whose request this run answered, if any (docs/contract.md section 15). */
  collection?: string | undefined;
  /** The bytes in order; ends early if the run is deleted while being read. */
  read(): AsyncIterable<Uint8Array>;
}

/** The run list's filters (docs/contract.md section 9); absent fields do not filter. */
export interface RunFilter {
  device?: string | undefined;
  privacy?: PrivacyLevel | undefined;
  /** Uploaded at or after this instant. */
  since?: number | undefined;
  /** Uploaded before this instant. */
  until?: number | undefined;
  /** Only runs the level check flagged (true) or did not (false). */
  flagged?: boolean | undefined;
  /** Only runs whose text holds every word of the query (docs/contract.md section 21), from the index. */
  text?: TextQuery | undefined;
}

/**
 * What storing a run came to (docs/contract.md section 6): stored now, already stored with these very
 * bytes (a retry), another run's bytes under this id, or no unrevoked device to store it for.
 */
export type PutRunResult = 'stored' | 'already-stored' | 'conflict' | 'device-unknown';

/** What a retention batch removed, or what the next sweep would. */
export interface RunsAndBytes {
  runs: number;
  bytes: number;
}
