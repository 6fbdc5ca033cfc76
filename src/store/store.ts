/**
 * The store, in domain words, one interface per domain file. Each statement is written once, in
 * the domain file (settings.ts, sign_in.ts, devices.ts, enroll_tokens.ts, runs.ts), and runs on
 * node:sqlite (store/sqlite) and PostgreSQL (store/postgres); what needs a transaction is written
 * per backend in the file of the same name. Both pass the same contract tests (test/store). Methods that act
 * on devices or runs take the Viewer so that scoping (docs/contract.md section 4) is enforced in one
 * place, in the query itself.
 */

import type { Viewer, Account, AccountSummary } from '../domain/accounts.ts';
import type { Device, DeviceFilter, LabelledDevice } from '../domain/devices.ts';
import type { Findings } from '../domain/redaction.ts';
import type { RunSummary, Run, StoredRun, RunFilter, PutRunResult, RunsAndBytes } from '../domain/runs.ts';
import type { PageRequest, Page } from '../domain/paging.ts';
import type { EnrollInput, NewEnrollToken, EnrollToken } from '../domain/enroll_tokens.ts';
import type { AuditRecord, AuditFilter } from '../domain/audit.ts';
import type { NewAccessToken, AccessToken } from '../domain/access_tokens.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { LabelChange, LabelChangeOutcome } from './labels.ts';

/** Settings shared by every instance on this store, and the self-test's probe (store/settings.ts). */
export interface SettingsStore {
  /** Generated keys and certificates, shared by every instance. */
  getSetting(name: string): Promise<string | undefined>;
  /** Stores `value` unless the setting exists; returns the value that is now stored (race-safe). */
  setSettingIfAbsent(name: string, value: string): Promise<string>;
  setSetting(name: string, value: string): Promise<void>;
  /** Writes and reads back a scratch row: the self-test's store check. */
  probe(now: number): Promise<void>;
}

/** Break-glass credentials, the throttle, accounts and ended sessions (store/sign_in.ts). */
export interface SignInStore {
  passwordHash(username: string): Promise<string | undefined>;
  setPasswordHash(username: string, hash: string): Promise<void>;
  /** Stores the hash only when the account has none yet; false when one exists (first writer wins). */
  createPasswordHash(username: string, hash: string): Promise<boolean>;

  /** Throttle state of docs/contract.md section 5, kept here so instances sharing a store share it. */
  loginFailuresSince(client: string, since: number): Promise<number>;
  recordLoginFailure(client: string, at: number): Promise<void>;
  clearLoginFailures(client: string): Promise<void>;
  /**
   * Gives `holder` the sign-in turn of `client` until `until`, unless another holder's turn runs
   * past `now`; true when taken. Attempts from one address are thus answered one at a time by
   * every instance together (docs/contract.md section 5), not one at a time per instance.
   */
  takeLoginTurn(client: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Ends `holder`'s turn (nothing when the turn has passed to another holder). */
  releaseLoginTurn(client: string, holder: string): Promise<void>;

  recordSignIn(account: Account): Promise<void>;
  knownAccounts(limit: number): Promise<Account[]>;

  /**
   * Sessions signed out before they expire (by id), so a copy of the cookie is refused by every
   * instance; rows of sessions past their expiry are pruned on each sign-out.
   */
  endSession(id: string, expiresAt: number, now: number): Promise<void>;
  sessionEnded(id: string): Promise<boolean>;
}

/** Enrollment tokens (store/enroll_tokens.ts). */
export interface EnrollTokensStore {
  /** Stores a token (by its hash) under a new public id; the record as stored. */
  createEnrollToken(token: NewEnrollToken): Promise<EnrollToken>;
  /** Tokens with uses left, unexpired at `now` and unrevoked, newest first; `before` is a public id. */
  outstandingEnrollTokens(page: PageRequest, now: number): Promise<Page<EnrollToken>>;
  /** Revokes an outstanding token; false when there is none with that public id. */
  revokeEnrollToken(publicId: string, at: number): Promise<boolean>;
}

/** Devices (store/devices.ts and labels.ts; enrollDevice and changeLabels in each backend's devices.ts). */
export interface DevicesStore {
  /**
   * Consumes one use of a token with uses left, unexpired and unrevoked, and creates its device
   * with the token's labels in one transaction; undefined when the token is not valid.
   */
  enrollDevice(input: EnrollInput): Promise<Device | undefined>;
  /** The device whose credential hashes to `hash`, revoked or not. */
  deviceByCredential(hash: string): Promise<(Device & { credentialHash: string }) | undefined>;
  /** A device and its labels, when the viewer can see it. */
  deviceVisibleTo(viewer: Viewer, id: string): Promise<LabelledDevice | undefined>;
  /** A page of devices, with their labels (one more statement for the page). */
  devicesVisibleTo(viewer: Viewer, page: PageRequest, filter?: DeviceFilter): Promise<Page<LabelledDevice>>;
  /**
   * Changes the labels of a device the viewer can see, in one transaction that holds the device
   * (its row lock on PostgreSQL), so the limit of 20 holds against concurrent changes: 'changed'
   * with the new set and the keys whose value changed (none when nothing did), 'refused' (nothing
   * changed; the error names the label) or 'unknown'.
   */
  changeLabels(viewer: Viewer, id: string, change: LabelChange): Promise<LabelChangeOutcome>;
  /** Marks the device revoked; false when it is not visible to the viewer or already revoked. */
  revokeDevice(viewer: Viewer, id: string, at: number): Promise<boolean>;
  /** Renames a device the viewer can see; false when it cannot. */
  renameDevice(viewer: Viewer, id: string, name: string): Promise<boolean>;
  /**
   * Deletes a revoked device the viewer can see, with its runs: 'deleted', 'not-revoked' (nothing
   * changed) or 'unknown' (not visible).
   */
  deleteDevice(viewer: Viewer, id: string): Promise<'deleted' | 'not-revoked' | 'unknown'>;
  /** How many unrevoked devices have not been seen since `before` (the metrics' stale devices). */
  staleDeviceCount(before: number): Promise<number>;
  /** Sets last seen unless it was written less than a minute ago (every authenticated control call). */
  touchDevice(id: string, now: number): Promise<void>;
  /** Revokes up to `limit` unrevoked devices not seen since `before`; their ids. */
  revokeStale(before: number, at: number, limit: number): Promise<string[]>;
}

/** Runs and the dashboard's numbers (store/runs.ts; putRun in each backend's runs.ts). */
export interface RunsStore {
  /** Stores a run unless the id is taken; idempotent for identical bytes (docs/contract.md section 6). */
  putRun(run: Run & { sha256: string }): Promise<PutRunResult>;
  runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined>;
  runsVisibleTo(viewer: Viewer, page: PageRequest, filter?: RunFilter): Promise<Page<RunSummary>>;
  /**
   * Whether the device has a run stored under this id, whoever asks: the control path's question
   * (a retry of a stored run is never refused by the quota), not scoped to a viewer.
   */
  runStored(device: string, id: string): Promise<boolean>;
  /** Total bytes of a device's runs, for the device page. */
  storedBytes(device: string): Promise<number>;
  deleteRun(viewer: Viewer, device: string, id: string): Promise<boolean>;
  /** Records the level check's result on a run (flagged when any count is above zero); false when it is gone. */
  recordLevelCheck(device: string, id: string, findings: Findings): Promise<boolean>;
  /** Redacted and minimal runs not checked yet, oldest first after `after` (a seq), at most `limit`. */
  uncheckedRuns(
    after: number,
    limit: number,
  ): Promise<Array<{ seq: number; device: string; id: string; privacy: PrivacyLevel }>>;

  /** Kept as counters as devices and runs come and go: the cost does not grow with the tables. */
  countsVisibleTo(viewer: Viewer): Promise<{ devices: number; activeDevices: number; runs: number }>;
  /** Uploads per UTC day for the `days` days ending with today, oldest first. */
  uploadsPerDay(viewer: Viewer, days: number, now: number): Promise<number[]>;
}

/** Retention by privacy level and the sweeper's lease (store/retention.ts, docs/contract.md section 10). */
export interface RetentionStore {
  /** Deletes up to `limit` runs of `privacy` uploaded before `before`, oldest first, with their chunks. */
  deleteExpiredRuns(privacy: PrivacyLevel, before: number, limit: number): Promise<RunsAndBytes>;
  /** The runs (at most `limit`) that deleteExpiredRuns would remove now, and their bytes. */
  dueForDeletion(privacy: PrivacyLevel, before: number, limit: number): Promise<RunsAndBytes>;
  /** Stored bytes per level, from the counts table (not summed over the runs). */
  storedBytesByLevel(viewer: Viewer): Promise<Record<PrivacyLevel, number>>;
  /** Stored runs per level, from the counts table too. */
  storedRunsByLevel(viewer: Viewer): Promise<Record<PrivacyLevel, number>>;
  /**
   * Gives `holder` the lease `name` until `until` unless another holder's lease runs past `now`
   * (one statement); true when taken or renewed.
   */
  takeLease(name: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Ends `holder`'s lease (nothing when it has passed to another holder). */
  releaseLease(name: string, holder: string): Promise<void>;
}

/** The audit trail (store/audit.ts): appended, read newest first, pruned; never updated. */
export interface AuditStore {
  appendAudit(record: AuditRecord): Promise<void>;
  /** Newest first; the cursor is `<at>.<seq>` of the last row shown. */
  auditPage(filter: AuditFilter, page: PageRequest): Promise<Page<AuditRecord>>;
  /** Every matching record, newest first, read `size` at a time: memory stays constant whatever the trail. */
  auditBatches(filter: AuditFilter, size: number): AsyncIterable<AuditRecord[]>;
  /** Deletes up to `limit` records older than `before`, oldest first; how many. */
  pruneAudit(before: number, limit: number): Promise<number>;
}

export interface AccountsStore {
  /** Accounts, most recent sign-in first; the cursor is `<last sign-in>:<subject>` of the last row shown. */
  accountsPage(page: PageRequest): Promise<Page<AccountSummary>>;
}

/** Personal access tokens (store/access_tokens.ts, docs/contract.md section 11). */
export interface AccessTokensStore {
  /** Stores a token (by its hash) under a new public id; the record as stored. */
  createAccessToken(token: NewAccessToken): Promise<AccessToken>;
  /** The account's tokens, revoked and expired ones too, newest first. */
  accessTokensOf(subject: string, page: PageRequest): Promise<Page<AccessToken>>;
  /** Revokes one of the account's own unrevoked tokens; false when it has none with that id. */
  revokeAccessToken(subject: string, publicId: string, at: number): Promise<boolean>;
  /** The token with this hash if it is neither revoked nor expired at `now`. */
  accessTokenByHash(hash: string, now: number): Promise<AccessToken | undefined>;
  /** Records a use, at most once a minute per token; whether it wrote. */
  touchAccessToken(publicId: string, at: number, client: string): Promise<boolean>;
}

export interface Store
  extends
    SettingsStore,
    SignInStore,
    DevicesStore,
    RunsStore,
    EnrollTokensStore,
    AuditStore,
    AccountsStore,
    RetentionStore,
    AccessTokensStore {
  close(): Promise<void>;
}
