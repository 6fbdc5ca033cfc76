/**
 * The store, in domain words, one interface per domain file. Each statement is written once, in
 * the domain file (settings.ts, sign_in.ts, devices.ts, enroll_tokens.ts, runs.ts), and runs on
 * node:sqlite (store/sqlite) and PostgreSQL (store/postgres); what needs a transaction is written
 * per backend in the file of the same name. Both pass the same contract tests (test/store). Methods that act
 * on devices or runs take the Viewer so that scoping (docs/contract.md section 4) is enforced in one
 * place, in the query itself.
 */

import type { Viewer, Account, AccountState, AccountSummary, SignIn } from '../domain/accounts.ts';
import type { NewSessionRecord, SessionRecord } from '../domain/sessions.ts';
import type { Device, DeviceFilter, LabelledDevice } from '../domain/devices.ts';
import type { CredentialDevice, CredentialState } from '../domain/credentials.ts';
import type { Findings } from '../domain/redaction.ts';
import type { RunSummary, Run, StoredRun, RunFilter, PutRunResult, RunsAndBytes } from '../domain/runs.ts';
import type { PageRequest, Page } from '../domain/paging.ts';
import type { EnrollInput, NewEnrollToken, EnrollToken } from '../domain/enroll_tokens.ts';
import type { AuditRecord, AuditFilter } from '../domain/audit.ts';
import type { NewAccessToken, AccessToken, LiveAccessToken } from '../domain/access_tokens.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import type { TotpFactor } from '../domain/totp.ts';
import type { AttemptResult, ClaimedDelivery, NewWebhook, Webhook, WebhookAttempt } from '../domain/webhooks.ts';
import type { Note } from '../events/note.ts';
import type { Subscription } from './wakeups.ts';
import type {
  Collection,
  CollectionScope,
  CollectionState,
  CollectionTarget,
  DeviceRequest,
  NewCollection,
  TargetCounts,
  TargetState,
  WokenDevice,
} from '../domain/collections.ts';
import type { LabelChange, LabelChangeOutcome } from './labels.ts';
import type { Facts } from '../domain/facts.ts';
import type {
  ScimGroup,
  ScimGroupFilter,
  ScimPage,
  ScimPageRequest,
  ScimUser,
  ScimUserFilter,
  ScimWriteOutcome,
} from '../domain/scim.ts';
import type { GroupSummary, HandedOver, HandOverPace } from '../domain/groups.ts';

/** Settings shared by every instance on this store, and the self-test's probe (store/settings.ts). */
export interface SettingsStore {
  /** Generated keys and certificates, shared by every instance. */
  getSetting(name: string): Promise<string | undefined>;
  /** Stores `value` unless the setting exists; returns the value that is now stored (race-safe). */
  setSettingIfAbsent(name: string, value: string): Promise<string>;
  setSetting(name: string, value: string): Promise<void>;
  /**
   * Stores `value` only while the setting still holds `expected` (compare and set): of instances
   * changing one setting at once, one wins and the others read again. False when it held another.
   */
  replaceSetting(name: string, expected: string, value: string): Promise<boolean>;
  /** Writes and reads back a scratch row: the self-test's store check. */
  probe(now: number): Promise<void>;
}

/** Break-glass credentials, the throttle, accounts, sessions and logout tokens (store/sign_in.ts). */
export interface SignInStore {
  passwordHash(username: string): Promise<string | undefined>;
  setPasswordHash(username: string, hash: string): Promise<void>;
  /** Stores the hash only when the account has none yet; false when one exists (first writer wins). */
  createPasswordHash(username: string, hash: string): Promise<boolean>;

  /** Throttle state of docs/contract.md section 5, kept here so instances sharing a store share it. */
  loginFailuresSince(client: string, since: number): Promise<number>;
  recordLoginFailure(client: string, at: number): Promise<void>;
  clearLoginFailures(client: string): Promise<void>;
  /** Failures from every address together since `since`: the account-wide schedule's count. */
  accountLoginFailuresSince(since: number): Promise<number>;
  /** Whether the break-glass account signed in from `client` after `since`. */
  knownLoginClient(client: string, since: number): Promise<boolean>;
  /**
   * Reserves the next slot of the schedule `name`, `interval` after the last one taken and not
   * before `now`: its start, or undefined (nothing reserved) when it would start after `latestStart`.
   */
  reserveLoginSlot(name: string, now: number, interval: number, latestStart: number): Promise<number | undefined>;
  /** Remembers a successful sign-in from `client` at `at`; forgets those before `forgetBefore`. */
  rememberLoginClient(client: string, at: number, forgetBefore: number): Promise<void>;
  /**
   * Gives `holder` the sign-in turn of `client` until `until`, unless another holder's turn runs
   * past `now`; true when taken. Attempts from one address are thus answered one at a time by
   * every instance together (docs/contract.md section 5), not one at a time per instance.
   */
  takeLoginTurn(client: string, holder: string, now: number, until: number): Promise<boolean>;
  /** Ends `holder`'s turn (nothing when the turn has passed to another holder). */
  releaseLoginTurn(client: string, holder: string): Promise<void>;

  /** Records a sign-in: the account's display name, its time, and the admin flag it gave (docs/contract.md section 14). */
  recordSignIn(account: SignIn): Promise<void>;
  knownAccounts(limit: number): Promise<Account[]>;
  /** One account as it stands now; undefined when it never signed in. */
  accountState(subject: string): Promise<AccountState | undefined>;
  /**
   * Disables the account at `at`, or enables it (`null`); false when it was already so or is
   * unknown. A disabled account's sessions are refused by seeSession whatever else happened.
   */
  setAccountDisabled(subject: string, at: number | null): Promise<boolean>;

  /** Signs a session out (by its cookie's id): its row is marked ended, so every instance refuses it. */
  endSession(id: string, now: number): Promise<void>;

  /**
   * Records a new session at sign-in (docs/contract.md section 14), keyed by the hash of its
   * cookie's id, never the id itself. Expired rows are pruned.
   */
  recordSession(session: NewSessionRecord): Promise<void>;
  /**
   * The guard's check of a session on every request, on the store (so every instance agrees at
   * once): 'live' only when a row was recorded for its id at sign-in with the same account, admin
   * flag and expiry, not ended, its account not disabled; its last seen written when a minute has passed.
   */
  seeSession(session: Omit<NewSessionRecord, 'startedAt'>, now: number): Promise<'live' | 'ended'>;
  /** The account's live sessions, newest first; `current` marks the one whose cookie id is `currentId`. */
  sessionsOf(subject: string, now: number, currentId?: string): Promise<Array<SessionRecord & { current: boolean }>>;
  /** Ends one of the account's live sessions by its public id; false when it has none such. */
  endSessionOf(subject: string, publicId: string, now: number): Promise<boolean>;
  /** Ends every live session of the account but the one whose cookie id is `except`; how many. */
  endSessionsOf(subject: string, now: number, except?: string): Promise<number>;
  /**
   * Ends the live sessions started by a sign-in with the provider's session id `sid` (of
   * `subject` only, when given); each account with how many of its sessions ended.
   */
  endSessionsBySid(
    sid: string,
    subject: string | undefined,
    now: number,
  ): Promise<Array<{ subject: string; sessions: number }>>;
  /** Notes a logout token's jti until `expiresAt`; false when it was seen before (a replay). */
  noteLogoutToken(jti: string, expiresAt: number, now: number): Promise<boolean>;
}

/** How a device's answer to a request ended (fulfilled by an upload, or declined). */
export type RequestAnswer =
  | { outcome: 'unknown' | 'not-open' }
  | {
      outcome: 'fulfilled' | 'declined';
      collection: string;
      /** When the collection was created: the metrics' time to answer. */
      createdAt: number;
      /** The collection, when this answer closed it. */
      closed: Collection | undefined;
    };

/** Collections and their targets (store/collections.ts; docs/contract.md section 15). */
export interface CollectionsStore {
  /** How many devices `scope` reaches for the viewer, counted up to MAX_TARGETS + 1. */
  countCollectionReach(viewer: Viewer, collection: NewCollection, scope: CollectionScope): Promise<number>;
  /**
   * Creates the collection and a target for every device of `scope` the viewer can see (at most
   * MAX_TARGETS), in one transaction; those it skips are targets too, with their reason. Devices
   * held waiting on any instance sharing the store hear of it (onRequestsCreated).
   */
  createCollection(viewer: Viewer, collection: NewCollection, scope: CollectionScope): Promise<Collection>;
  /** Collections newest first, with their counts: all of them for an admin, else the viewer's own. */
  collectionsVisibleTo(viewer: Viewer, page: PageRequest, state?: CollectionState): Promise<Page<Collection>>;
  /** How many collections collectionsVisibleTo lists, counted up to `upTo` (a larger number is `upTo + 1`). */
  countCollectionsVisibleTo(viewer: Viewer, state: CollectionState | undefined, upTo: number): Promise<number>;
  /** One collection, with its counts, when the viewer created it or is an admin. */
  collectionVisibleTo(viewer: Viewer, id: string): Promise<Collection | undefined>;
  /**
   * A page of a collection's targets, newest first, in one state or all: every target for an admin,
   * else those of the viewer's own devices (as the device list scopes them); collectionVisibleTo's
   * and collectionsVisibleTo's counts are scoped alike.
   */
  collectionTargets(
    viewer: Viewer,
    id: string,
    page: PageRequest,
    state?: TargetState,
  ): Promise<Page<CollectionTarget>>;
  /**
   * Cancels the open targets of a collection the viewer may cancel (an admin: all of them; its
   * non-admin creator: those of its own devices); undefined when it may not (or none such).
   */
  cancelCollection(
    viewer: Viewer,
    id: string,
    at: number,
  ): Promise<{ cancelled: number; closed: Collection | undefined } | undefined>;
  /** The device's open, unexpired requests, oldest first, at most `limit`; the pending ones become delivered. */
  takeRequests(device: string, now: number, limit: number): Promise<DeviceRequest[]>;
  /**
   * One of the device's requests, in whatever state; undefined for another device's or an unknown
   * one. With `run`, `stored` is the level of the device's run of that id when one is stored (null
   * otherwise), read in the same statement: an upload's X-Collection is judged on one read.
   */
  requestOf(
    device: string,
    id: string,
    run?: string,
  ): Promise<
    { request: DeviceRequest; state: TargetState; run: string | null; stored: PrivacyLevel | null } | undefined
  >;
  /**
   * Marks the device's open request fulfilled by `run`: 'not-open' when it is not (or is another
   * device's). The request is the one requestOf read, not read again.
   */
  fulfilRequest(
    device: string,
    request: Pick<DeviceRequest, 'id' | 'collection' | 'createdAt'>,
    run: string,
    at: number,
  ): Promise<RequestAnswer>;
  /** Marks the device's open request declined with `reason`. */
  /** `stderr`: the end of the failed command's standard error the device sent (docs/contract.md section 15), or null. */
  declineRequest(
    device: string,
    id: string,
    reason: string,
    at: number,
    stderr?: string | null,
  ): Promise<RequestAnswer>;
  /** Cancels a (revoked) device's open requests; the collections that closed. */
  cancelDeviceRequests(device: string, at: number): Promise<Collection[]>;
  /** Expires the open targets of up to `limit` collections past their expiry; the collections closed. */
  expireCollections(now: number, limit: number): Promise<Collection[]>;
  /**
   * Wakes held devices (at most WAKE_SLICE at a time): those revoked, and those with open requests,
   * with at most `limit` of them each, oldest first; their pending requests become delivered. The
   * devices with neither are absent.
   */
  wakeRequests(devices: readonly string[], now: number, limit: number): Promise<Map<string, WokenDevice>>;
  /** Targets of every collection by state (the metrics' gauge). */
  targetsByState(): Promise<TargetCounts>;
  /**
   * Hears of every collection created by any instance sharing the store: in this process on
   * SQLite, through PostgreSQL's LISTEN/NOTIFY across instances.
   */
  onRequestsCreated(listener: (collection: string) => void): Subscription;
}

/** Enrollment tokens (store/enroll_tokens.ts). */
export interface EnrollTokensStore {
  /** Stores a token (by its hash) under a new public id; the record as stored. */
  createEnrollToken(token: NewEnrollToken, note?: (token: EnrollToken) => Note): Promise<EnrollToken>;
  /** Tokens with uses left, unexpired at `now` and unrevoked, newest first; `before` is a public id. */
  outstandingEnrollTokens(page: PageRequest, now: number): Promise<Page<EnrollToken>>;
  /** How many tokens are outstanding at `now`, counted up to `upTo` (a larger number is `upTo + 1`) as the list reads them. */
  countOutstandingEnrollTokens(now: number, upTo: number): Promise<number>;
  /** Revokes an outstanding token; false when there is none with that public id. */
  revokeEnrollToken(publicId: string, at: number, note?: Note): Promise<boolean>;
}

/** What devices report about themselves (store/facts.ts; docs/contract.md section 16). */
export interface FactsStore {
  /**
   * Replaces an unrevoked device's facts with `facts` and records the report's time, in one
   * transaction; false (nothing changed) when the device is revoked or unknown.
   */
  reportFacts(device: string, facts: Facts, at: number): Promise<boolean>;
  /** Unrevoked devices by their value of the fact `key`, most common first, at most `limit` values. */
  factValueCounts(key: string, limit: number): Promise<Array<{ value: string; devices: number }>>;
}

/** Device credentials (store/credentials.ts; docs/contract.md section 16). */
export interface CredentialsStore {
  /**
   * The device a presented credential belongs to, revoked or not: by its current credential, or by
   * the one the last rotation replaced while that still works at `now`. The current one's first use
   * ends the replaced one's overlap: this lookup records it.
   */
  deviceByCredential(hash: string, now: number): Promise<CredentialDevice | undefined>;
  /**
   * Replaces the device's credential hashed `replaced` by the one hashed `hash`, when `replaced` is
   * still its current one and it is not revoked: of rotations racing with one credential, one does.
   * The replaced one works until `until` or the new one's first use; `salt` derives the new one
   * from it again (rotationOf). `note`: the change's outbox message.
   */
  rotateCredential(
    rotation: {
      device: string;
      replaced: string;
      hash: string;
      salt: string;
      at: number;
      until: number;
      /** The replaced credential's hash is kept until then, to recognise its reuse (replacedCredential). */
      keepUntil: number;
    },
    note?: Note,
  ): Promise<boolean>;
  /** The salt and the new credential's hash of the rotation that replaced `replaced`, while that still works at `now`. */
  rotationOf(device: string, replaced: string, now: number): Promise<{ salt: string; hash: string } | undefined>;
  /** An administrator asks the device to rotate at its next answer; 'unknown' when not visible to the viewer. */
  askRotation(viewer: Viewer, id: string, at: number, note?: Note): Promise<'asked' | 'revoked' | 'unknown'>;
  /** Records that the device's credential expired: true the first time for that credential (audited once). */
  noteCredentialExpired(device: string, at: number, note?: Note): Promise<boolean>;
  /** When the device's credential was issued and rotated, for a device the caller may see. */
  deviceCredential(id: string): Promise<CredentialState | undefined>;
  /** Clears the replaced credential and the salt of up to `limit` devices whose overlap passed by `now`; how many. */
  endOverlaps(now: number, limit: number): Promise<number>;
  /** A credential some rotation replaced, kept at `now` (docs/contract.md section 16, reuse is theft), and its device. */
  replacedCredential(hash: string, now: number): Promise<ReplacedCredential | undefined>;
  /**
   * Makes the device pending for the reuse of a replaced credential, when it is neither pending nor
   * revoked: true for the one call that does (which writes `note`), however many race.
   */
  noteCredentialReused(device: string, at: number, note?: Note): Promise<boolean>;
  /**
   * Records the first reissue of the credential that replaced the one hashed `replaced` (a rotation
   * asked again with it in its overlap): true for the one call that does, which writes `note`.
   */
  noteCredentialReissued(replaced: string, at: number, note?: Note): Promise<boolean>;
  /** Forgets up to `limit` replaced credentials kept until `now` or before; how many. */
  endReplaced(now: number, limit: number): Promise<number>;
}

/** A replaced credential's device, as its reuse is judged. */
export interface ReplacedCredential {
  device: string;
  owner: string;
  replacedAt: number;
  /** When its overlap ended (the new credential's first use) or ends (10 minutes after the rotation). */
  overlapUntil: number;
  pendingSince: number | null;
  revokedAt: number | null;
}

/** Devices (store/devices.ts and labels.ts; enrollDevice and changeLabels in each backend's devices.ts). */
export interface DevicesStore {
  /**
   * Consumes one use of a token with uses left, unexpired and unrevoked, and creates its device
   * with the token's labels in one transaction; undefined when the token is not valid. A token minted
   * with approval required makes a pending device. `note`: the messages written in that transaction.
   */
  enrollDevice(input: EnrollInput, note?: (device: Device) => Note | readonly Note[]): Promise<Device | undefined>;
  /** A device and its labels, when the viewer can see it. */
  deviceVisibleTo(viewer: Viewer, id: string): Promise<LabelledDevice | undefined>;
  /** A page of devices, with their labels (one more statement for the page). */
  devicesVisibleTo(viewer: Viewer, page: PageRequest, filter?: DeviceFilter): Promise<Page<LabelledDevice>>;
  /**
   * How many devices the filter holds in the viewer's scope, counted up to `upTo` (a larger number
   * is `upTo + 1`): the device list's totals (docs/contract.md section 22), which never count more.
   */
  countDevicesVisibleTo(viewer: Viewer, filter: DeviceFilter, upTo: number): Promise<number>;
  /**
   * Changes the labels of a device the viewer can see, in one transaction that holds the device
   * (its row lock on PostgreSQL), so the limit of 20 holds against concurrent changes: 'changed'
   * with the new set and the keys whose value changed (none when nothing did), 'refused' (nothing
   * changed; the error names the label) or 'unknown'.
   */
  /** `note`: the device.labelled outbox message of the keys changed, written in the change's transaction. */
  changeLabels(
    viewer: Viewer,
    id: string,
    change: LabelChange,
    note?: (changed: readonly string[]) => Note,
  ): Promise<LabelChangeOutcome>;
  /** Marks the device revoked (which ends a wait for approval); false when it is not visible to the viewer or already revoked. */
  revokeDevice(viewer: Viewer, id: string, at: number, note?: Note): Promise<boolean>;
  /** Approves a pending device (docs/contract.md section 16); false when it is not visible or not pending. */
  approveDevice(viewer: Viewer, id: string, note?: Note): Promise<boolean>;
  /** Rejects a pending device: it is revoked; false when it is not visible or not pending. */
  rejectDevice(viewer: Viewer, id: string, at: number, note?: Note): Promise<boolean>;
  /** The devices waiting for approval: how many, and the oldest one's enrollment (null when none). */
  pendingDevices(): Promise<{ count: number; oldest: number | null }>;
  /** Renames a device the viewer can see; false when it cannot. */
  renameDevice(viewer: Viewer, id: string, name: string, note?: Note): Promise<boolean>;
  /**
   * Deletes a revoked device the viewer can see, with its runs: 'deleted', 'not-revoked' (nothing
   * changed) or 'unknown' (not visible).
   */
  deleteDevice(viewer: Viewer, id: string, note?: Note): Promise<'deleted' | 'not-revoked' | 'unknown'>;
  /** How many unrevoked, approved devices have not been seen since `before` (the metrics' stale devices). */
  staleDeviceCount(before: number): Promise<number>;
  /** Sets last seen unless it was written less than a minute ago (every authenticated control call). */
  touchDevice(id: string, now: number): Promise<void>;
  /** Revokes up to `limit` unrevoked devices not seen since `before`; their ids. */
  revokeStale(before: number, at: number, limit: number, note?: (id: string) => Note): Promise<string[]>;
  /**
   * Marks up to `limit` unrevoked devices not seen since `before` and not marked yet as stale (a
   * device that calls again is unmarked); the devices marked, each with its note written in the
   * same statement's transaction (device.stale is sent once per stretch of silence).
   */
  markStale(
    before: number,
    at: number,
    limit: number,
    note: (device: { id: string; owner: string; lastSeenAt: number | null }) => Note,
  ): Promise<string[]>;
}

/** Runs and the dashboard's numbers (store/runs.ts; putRun in each backend's runs.ts). */
export interface RunsStore {
  /** Stores a run unless the id is taken; idempotent for identical bytes (docs/contract.md section 6). */
  putRun(run: Run & { sha256: string }, note?: Note): Promise<PutRunResult>;
  runVisibleTo(viewer: Viewer, device: string, id: string): Promise<StoredRun | undefined>;
  /** The runs below `below` (by seq), newest first, at most `limit`: the search index's backfill. */
  runsBelow(below: number, limit: number): Promise<Array<{ seq: number; device: string; id: string }>>;
  /** Writes a run's words (src/domain/words.ts) into the search index, unless the run is gone; the backfill's. */
  indexRunWords(seq: number, words: string): Promise<void>;
  /** The names of these devices (a page's worth), by id; a device no longer stored is absent. */
  deviceNames(devices: readonly string[]): Promise<Map<string, string>>;
  /**
   * How many runs in scope the filter (not a text search) holds, counted up to `cap + 1` through
   * the filtered list's own statement, so a count never reads more than that many index entries.
   */
  countRuns(viewer: Viewer, filter: RunFilter, cap: number): Promise<number>;
  /** The device's run stored just before this one, when both are in the viewer's scope (the run view's compare link). */
  previousRun(viewer: Viewer, device: string, id: string): Promise<RunSummary | undefined>;
  runsVisibleTo(viewer: Viewer, page: PageRequest, filter?: RunFilter): Promise<Page<RunSummary>>;
  /**
   * Whether the device has a run stored under this id, whoever asks: the control path's question
   * (a retry of a stored run is never refused by the quota), not scoped to a viewer.
   */
  runStored(device: string, id: string): Promise<boolean>;
  /** Total bytes of a device's runs, for the device page. */
  storedBytes(device: string): Promise<number>;
  deleteRun(viewer: Viewer, device: string, id: string, note?: Note): Promise<boolean>;
  /** Records the level check's result on a run (flagged when any count is above zero); false when it is gone. */
  recordLevelCheck(device: string, id: string, findings: Findings, note?: Note): Promise<boolean>;
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

/** The dashboard's fleet at a glance (store/dashboard.ts, docs/contract.md section 22), in the viewer's scope. */
export interface DashboardStore {
  /** Devices seen since `onlineSince` and since `daySince`, stale ones (as the device list's status), open collections, flagged runs. */
  fleetCounts(
    viewer: Viewer,
    at: { onlineSince: number; daySince: number; staleBefore: number },
  ): Promise<{ online: number; seenToday: number; stale: number; openCollections: number; flaggedRuns: number }>;
  /** Uploads per UTC day for the `days` days ending with today, oldest first, by privacy level. */
  uploadsByLevel(viewer: Viewer, days: number, now: number): Promise<Record<PrivacyLevel, number[]>>;
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
  /**
   * Appends several records in order, up to 100 a statement (each all or none). The audit trail's
   * writer takes what queued together (a hand-over of thousands of devices) at a fraction of a
   * commit each.
   */
  appendAudits(records: readonly AuditRecord[]): Promise<void>;
  /** Newest first; the cursor is `<at>.<seq>` of the last row shown. */
  auditPage(filter: AuditFilter, page: PageRequest): Promise<Page<AuditRecord>>;
  /**
   * How many records the filter holds, counted up to `upTo` (a larger number is `upTo + 1`) through
   * the filtered page's own statement and index (docs/contract.md section 22: the list's total).
   */
  countAudit(filter: AuditFilter, upTo: number): Promise<number>;
  /** Every matching record, newest first, read `size` at a time: memory stays constant whatever the trail. */
  auditBatches(filter: AuditFilter, size: number): AsyncIterable<AuditRecord[]>;
  /** Deletes up to `limit` records older than `before`, oldest first; how many. */
  pruneAudit(before: number, limit: number): Promise<number>;
}

/** Where a feed of the audit trail stands: the last record sent, `(tx, seq)` (store/audit_feed.ts). */
export interface AuditPosition {
  tx: number;
  seq: number;
}

/** The audit trail in the order records became visible, for the syslog sender (store/audit_feed.ts). */
export interface AuditFeedStore {
  /**
   * Up to `limit` records after `position`, in the order they became visible, with their positions:
   * only records no later record can precede, so reading on from the last one skips nothing.
   */
  auditAfter(position: AuditPosition, limit: number): Promise<Array<{ position: AuditPosition; record: AuditRecord }>>;
  /** The position a destination has been sent up to; before every record when none is kept. */
  auditForwarded(name: string): Promise<AuditPosition>;
  /** Keeps the destination's position, only ever forward (a later position is never replaced). */
  setAuditForwarded(name: string, position: AuditPosition): Promise<void>;
}

/** An account's groups (store/account_groups.ts, docs/contract.md section 19). */
export interface AccountGroupsStore {
  /**
   * Replaces the account's groups with these (names without `group:`, duplicates ignored), in one
   * transaction. A name that is not a group's, or more than MAX_ACCOUNT_GROUPS, is a TypeError:
   * callers clean what they were given first (oidc/groups.ts).
   */
  setAccountGroups(subject: string, groups: readonly string[]): Promise<void>;
  /** The account's groups, by name; none for an account the store does not know. */
  accountGroups(subject: string): Promise<string[]>;
}

/** Owners (store/owners.ts; handOverDevices in each backend's owners.ts; docs/contract.md section 19). */
export interface OwnersStore {
  /**
   * Hands the devices of `ids` (at most handOverPace.batch) over to `to` in one transaction, with
   * their runs' copy of the owner and the note of each device moved: those already `to`'s, and
   * unknown ids, are left out. Admin only: the caller checked. The devices moved and their owner.
   */
  handOverDevices(ids: readonly string[], to: string, note: (moved: HandedOver) => Note): Promise<HandedOver[]>;
  /**
   * How a hand-over of many devices goes: `batch` devices a transaction, then a pause of `pause`
   * times the batch's time. SQLite's statements hold the process's one thread: small batches, a
   * pause twice as long (a third of the thread at most, the rest for uploads). PostgreSQL's hold
   * only the batch's devices' rows: larger batches (fewer round trips), no pause.
   */
  readonly handOverPace: HandOverPace;
  /** The ids of up to `limit` devices `owner` holds, oldest enrollment first. */
  devicesOwnedBy(owner: string, limit: number): Promise<string[]>;
  /** How many devices belong to disabled accounts (the dashboard's count), from the counters. */
  disabledOwnersDevices(): Promise<number>;
  /** The groups known from accounts and owners, by name; the cursor is the last name shown. */
  groupsPage(page: PageRequest): Promise<Page<GroupSummary>>;
  /** How many groups groupsPage lists, counted up to `upTo` (a larger number is `upTo + 1`). */
  countGroups(upTo: number): Promise<number>;
  /** One group with its first `members` members; undefined when no account is in it and it owns no device. */
  group(name: string, members: number): Promise<GroupSummary | undefined>;
}

/**
 * SCIM users, groups and members (store/scim.ts, docs/contract.md section 20). A change's `notes`
 * (the webhook outbox's, docs/contract.md section 13) are written in its transaction, only when it is done.
 */
export interface ScimStore {
  /** A page of users matching every equality of `filter`, by userName, with how many match in all. */
  scimUsers(filter: ScimUserFilter, page: ScimPageRequest): Promise<ScimPage<ScimUser>>;
  scimUser(id: string): Promise<ScimUser | undefined>;
  /** The user whose userName is `userName` in any case. */
  scimUserByUserName(userName: string): Promise<ScimUser | undefined>;
  /** The user linked to the account `subject`. */
  scimUserOfSubject(subject: string): Promise<ScimUser | undefined>;
  /** 'taken' when another user has its userName (in any case). */
  createScimUser(
    user: Omit<ScimUser, 'subject' | 'updatedAt' | 'version'>,
    notes?: readonly Note[],
  ): Promise<ScimWriteOutcome>;
  /** Replaces the user's attributes when it is still at `expectedVersion` ('missed' otherwise). */
  replaceScimUser(
    user: Omit<ScimUser, 'subject' | 'createdAt' | 'version'>,
    expectedVersion: number,
    notes?: readonly Note[],
  ): Promise<ScimWriteOutcome>;
  /** Deletes the user and its memberships; its linked account keeps no group of them. */
  deleteScimUser(id: string, notes?: readonly Note[]): Promise<ScimWriteOutcome>;
  /** Links an unlinked user to the account that signed in with its userName; its groups become the account's. */
  linkScimUser(id: string, subject: string, notes?: readonly Note[]): Promise<boolean>;
  /** The ids of `ids` that name no user. */
  missingScimUsers(ids: readonly string[]): Promise<string[]>;
  /** The names of the SCIM groups of the account `subject` (the first MAX_ACCOUNT_GROUPS by name). */
  scimGroupsOfSubject(subject: string): Promise<string[]>;
  /** Users provisioned and not signed in yet, by userName, at most `limit`, with how many in all. */
  unlinkedScimUsers(limit: number): Promise<ScimPage<ScimUser>>;
  /** A page of groups by displayName, with their members when `withMembers`. */
  scimGroups(filter: ScimGroupFilter, page: ScimPageRequest, withMembers: boolean): Promise<ScimPage<ScimGroup>>;
  scimGroup(id: string, withMembers: boolean): Promise<ScimGroup | undefined>;
  /** 'taken' when another group has its displayName. Its members' accounts get the group. */
  createScimGroup(
    group: Omit<ScimGroup, 'members' | 'updatedAt' | 'version'> & { members: readonly string[] },
    notes?: readonly Note[],
  ): Promise<ScimWriteOutcome>;
  /**
   * Replaces the group's name and externalId and changes its members, when it is still at
   * `expectedVersion`; renamed (`renamedFrom`), its devices, runs and enrollment tokens move to the
   * new name's owner in the same transaction.
   */
  replaceScimGroup(
    group: Omit<ScimGroup, 'members' | 'createdAt' | 'version'> & {
      renamedFrom?: string;
      added: readonly string[];
      removed: readonly string[];
    },
    expectedVersion: number,
    notes?: readonly Note[],
  ): Promise<ScimWriteOutcome>;
  /** Deletes the group; its devices stay `group:<name>`'s, its members' accounts lose it. */
  deleteScimGroup(id: string, notes?: readonly Note[]): Promise<ScimWriteOutcome>;
}

export interface AccountsStore {
  /** Accounts, most recent sign-in first; the cursor is `<last sign-in>:<subject>` of the last row shown. */
  accountsPage(page: PageRequest): Promise<Page<AccountSummary>>;
  /** How many accounts are known, counted up to `upTo` (a larger number is `upTo + 1`). */
  countAccounts(upTo: number): Promise<number>;
}

/** Personal access tokens (store/access_tokens.ts, docs/contract.md section 11). */
export interface AccessTokensStore {
  /** Stores a token (by its hash) under a new public id; the record as stored. */
  createAccessToken(token: NewAccessToken): Promise<AccessToken>;
  /** The account's tokens, revoked and expired ones too, newest first. */
  accessTokensOf(subject: string, page: PageRequest): Promise<Page<AccessToken>>;
  /** Revokes one of the account's own unrevoked tokens; false when it has none with that id. */
  revokeAccessToken(subject: string, publicId: string, at: number): Promise<boolean>;
  /** The token with this hash if it is neither revoked nor expired at `now`, with its account as it stands now. */
  accessTokenByHash(hash: string, now: number): Promise<LiveAccessToken | undefined>;
  /** Records a use, at most once a minute per token; whether it wrote. */
  touchAccessToken(publicId: string, at: number, client: string): Promise<boolean>;
}

/** The break-glass account's second factor (store/totp.ts, docs/contract.md section 14). */
export interface TotpStore {
  totpFactor(subject: string): Promise<TotpFactor | undefined>;
  /** Stores the factor unless the account has one; false when it has (the first confirmation wins). */
  createTotpFactor(subject: string, factor: TotpFactor): Promise<boolean>;
  /**
   * Accepts a code of `step` once: true when the last accepted step was earlier, and then (with
   * `spend`) the step is recorded. Without `spend` the same statement runs and changes nothing.
   */
  spendTotpStep(subject: string, step: number, spend: boolean): Promise<boolean>;
  /**
   * Uses the recovery code hashed to `hash`, one of `read` (the unused hashes as read): true when the
   * list is still `read`, and then (with `spend`) `hash` is removed from it.
   */
  spendRecoveryCode(subject: string, read: readonly string[], hash: string, spend: boolean): Promise<boolean>;
  /** Removes the factor; false when the account had none. */
  deleteTotpFactor(subject: string): Promise<boolean>;
}

/**
 * Webhook endpoints and the outbox (store/webhooks.ts, store/outbox.ts; docs/contract.md section
 * 13). The `note` of a write method above is its outbox message, written in its transaction.
 */
export interface WebhooksStore {
  createWebhook(webhook: NewWebhook): Promise<Webhook>;
  /** Newest first, at most `limit`. */
  webhooks(limit: number): Promise<Webhook[]>;
  webhook(id: string): Promise<Webhook | undefined>;
  /** False when there is no such endpoint or nothing changed. */
  enableWebhook(id: string): Promise<boolean>;
  disableWebhook(id: string): Promise<boolean>;
  /** The endpoint, its deliveries and their attempts; false when there is none. */
  deleteWebhook(id: string): Promise<boolean>;
  /** The current secret becomes the previous one (it signs too for 24 hours). */
  rotateWebhookSecret(id: string, sealedSecret: string, at: number): Promise<boolean>;
  /** The endpoint's latest attempts, newest first. */
  webhookAttempts(id: string, limit: number): Promise<WebhookAttempt[]>;
  /** Queues one of the endpoint's deliveries again from the start; its message id, or undefined. */
  redeliver(endpoint: string, delivery: number, at: number): Promise<string | undefined>;
  /** A note of an event that changed nothing stored (a refused upload), in a transaction of its own. */
  enqueue(note: Note): Promise<void>;
  /** A note for one endpoint, enabled or not (webhook.test); false when there is none. */
  enqueueTo(endpoint: string, note: Note): Promise<boolean>;
  /** Claims up to `limit` due deliveries of enabled endpoints for `claimMs`, each for one attempt. */
  claimDeliveries(now: number, limit: number, claimMs: number): Promise<ClaimedDelivery[]>;
  /**
   * Records an attempt and its consequence in one transaction: delivered, retried at `at`, or
   * failed for good; a failure disables the endpoint when it has been failing since
   * `disableIfFailingSince` or before (then `disabled`).
   */
  finishAttempt(
    attempt: AttemptResult,
    next:
      | { kind: 'delivered' }
      | { kind: 'retry'; at: number; disableIfFailingSince: number }
      | { kind: 'failed'; disableIfFailingSince: number },
  ): Promise<{ disabled: boolean }>;
  /**
   * finishAttempt for several attempts in one transaction (the sender's answers that arrived
   * together): one result per attempt, in order. All are recorded or none.
   */
  finishAttempts(
    finished: ReadonlyArray<{ attempt: AttemptResult; next: Parameters<WebhooksStore['finishAttempt']>[1] }>,
  ): Promise<Array<{ disabled: boolean }>>;
  /** Pending deliveries and the creation time of the oldest. */
  outboxDepth(): Promise<{ pending: number; oldest: number | null }>;
  /** Deletes up to `limit` deliveries finished before `before` (with their attempts, and messages left alone). */
  pruneWebhooks(before: number, limit: number): Promise<number>;
}

/** The sign-in states that came back to the callback (store/oidc_states.ts; docs/contract.md section 23). */
export interface OidcStatesStore {
  /**
   * Records that `state` came back, remembered until `expiresAt`: true the first time only, on
   * any instance sharing the store; false when it had come back already (a replay).
   */
  oidcStateCameBack(state: string, expiresAt: number): Promise<boolean>;
  /** Deletes up to `limit` states expired at `now`; how many (the minute sweep). */
  pruneOidcStates(now: number, limit: number): Promise<number>;
}

export interface Store
  extends
    WebhooksStore,
    SettingsStore,
    SignInStore,
    DevicesStore,
    RunsStore,
    EnrollTokensStore,
    AuditStore,
    AuditFeedStore,
    AccountsStore,
    ScimStore,
    AccountGroupsStore,
    OwnersStore,
    RetentionStore,
    DashboardStore,
    AccessTokensStore,
    TotpStore,
    CollectionsStore,
    FactsStore,
    CredentialsStore,
    OidcStatesStore {
  close(): Promise<void>;
}
