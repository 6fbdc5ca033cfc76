/**
 * The event catalogue (docs/contract.md sections 8 and 13): every event Paddock logs, audits or counts is
 * named here once, with its log level, its fields and their types, and whether the audit trail
 * stores it. The log, the audit trail, the metrics (and later the webhook deliveries) subscribe to
 * it (bus.ts); handlers emit `EVENTS.deviceRevoked` and TypeScript checks the fields. A new event
 * is one entry here and the line that emits it; the README's event table is checked against it.
 *
 * An audited event's row (docs/contract.md section 9) is derived the same way for every event: `account`,
 * `client`, `device` and `run` go to their columns, the other fields to a short `detail`; an entry
 * with `auditAccount` names the account from another field (a break-glass sign-in's `user`, a
 * device's own doing's `device`).
 */
import { PRIVACY_LEVELS, type PrivacyLevel } from '../domain/privacy.ts';

export type Level = 'debug' | 'info' | 'warn' | 'error';

/** A field's type; a trailing `?` marks a field that an emitter may leave out. */
type Kind = 'string' | 'number' | 'boolean';
export type FieldKind = Kind | `${Kind}?`;
export type FieldSpec = Readonly<Record<string, FieldKind>>;

type ValueOf<K> = K extends `string${'' | '?'}` ? string : K extends `number${'' | '?'}` ? number : boolean;
type Flat<T> = { [K in keyof T]: T[K] };

/** The typed fields of a spec: `{ account: 'string', reason: 'string?' }` is `{ account: string; reason?: string }`. */
export type FieldsOf<S extends FieldSpec> = Flat<
  { [K in keyof S as S[K] extends `${string}?` ? never : K]: ValueOf<S[K]> } & {
    [K in keyof S as S[K] extends `${string}?` ? K : never]?: ValueOf<S[K]>;
  }
>;

/** The value a field may hold in any event (what a subscriber that reads every event sees). */
export type FieldValue = string | number | boolean | null | undefined;
export type Fields = Readonly<Record<string, FieldValue>>;

export interface EventEntry<N extends string = string, S extends FieldSpec = FieldSpec> {
  readonly name: N;
  readonly level: Level;
  readonly fields: S;
  /** Whether the audit trail stores it (docs/contract.md section 9). */
  readonly audited: boolean;
  /** The stored account, when it is not the `account` field: `prefix` + the named field. */
  readonly auditAccount?: { readonly prefix: string; readonly field: keyof S & string };
  /** What happened, in one line (the README's table shows it). */
  readonly help: string;
  /**
   * Whether webhooks may subscribe to it (docs/contract.md section 13): `all` is in `*`, `opt-in`
   * only when named (run.stored: one per upload).
   */
  readonly webhook?: 'all' | 'opt-in';
  /**
   * A refusal on a route open without a credential (docs/contract.md section 23): logged each
   * time, but audited (and sent to webhooks) at most once a minute per `client` address, its row's
   * `count` the refusals it stands for (audit/refusal_limit.ts).
   */
  readonly openRefusal?: true;
}

function event<const N extends string, const S extends FieldSpec>(entry: EventEntry<N, S>): EventEntry<N, S> {
  return entry;
}

/** The refusals one audited row stands for (`openRefusal`). */
const COUNT = { count: 'number?' } as const;

/**
 * What an action says about who did it and from where (`client`: docs/contract.md section 8). An account
 * acting through a door always has a client; the system actor (the sweepers) has none.
 */
const ACTOR = { account: 'string', client: 'string?' } as const;
/** What a device did is audited with the device as its actor, not its owner (docs/contract.md section 22). */
const BY_DEVICE = { prefix: 'device:', field: 'device' } as const;
/** A SCIM user an event is about: its SCIM id, userName, and its account once linked. */
const SCIM_USER = { ...ACTOR, user: 'string', userName: 'string', subject: 'string?' } as const;
/** A SCIM group an event is about: its SCIM id and the owner it stands for. */
const SCIM_GROUP = { ...ACTOR, group: 'string', owner: 'string' } as const;
/** The runs the retention sweep deleted, per privacy level. */
const PER_LEVEL = Object.fromEntries(PRIVACY_LEVELS.map((level) => [level, 'number'])) as Record<
  PrivacyLevel,
  'number'
>;

export const EVENTS = {
  // docs/contract.md section 8.
  loginLocalFailed: event({
    name: 'login.local.failed',
    level: 'warn',
    fields: { user: 'string', client: 'string', ...COUNT },
    audited: true,
    auditAccount: { prefix: 'local:', field: 'user' },
    help: 'a break-glass sign-in was refused; logged each time, audited at most once a minute per client address with `count` (docs/contract.md section 23)',
    webhook: 'all',
    openRefusal: true,
  }),
  loginLocalSucceeded: event({
    name: 'login.local.succeeded',
    level: 'info',
    fields: { user: 'string', client: 'string', method: 'string' },
    audited: true,
    auditAccount: { prefix: 'local:', field: 'user' },
    help: 'a break-glass sign-in (method `local`)',
  }),
  loginOidcExchangeFailed: event({
    name: 'login.oidc.exchange_failed',
    level: 'warn',
    fields: { client: 'string', error: 'string', ...COUNT },
    audited: true,
    help: "the identity provider's code exchange failed; logged each time, audited at most once a minute per client address with `count` (docs/contract.md section 23)",
    openRefusal: true,
  }),
  loginOidcTokenRejected: event({
    name: 'login.oidc.token_rejected',
    level: 'warn',
    fields: { client: 'string', error: 'string', ...COUNT },
    audited: true,
    help: 'the identity token did not verify; logged each time, audited at most once a minute per client address with `count` (docs/contract.md section 23)',
    openRefusal: true,
  }),
  oidcLogoutTokenRejected: event({
    name: 'oidc.logout_token_rejected',
    level: 'warn',
    fields: { client: 'string', error: 'string', ...COUNT },
    audited: true,
    help: 'a back-channel logout token did not verify (docs/contract.md section 17); nothing ended; logged each time, audited at most once a minute per client address with `count` (docs/contract.md section 23)',
    openRefusal: true,
  }),
  loginOidcGroupsCleaned: event({
    name: 'login.oidc.groups_cleaned',
    level: 'warn',
    fields: { account: 'string', client: 'string', reason: 'string', dropped: 'number', kept: 'number' },
    audited: true,
    help: 'the groups claim of a sign-in was not a list of strings (`not_a_list`: the account has no groups), held names that are not group names (`invalid_names`) or more than 256 (`too_many`: the first 256 kept); `dropped` entries left out (docs/contract.md section 19)',
  }),
  loginOidcSucceeded: event({
    name: 'login.oidc.succeeded',
    level: 'info',
    fields: { account: 'string', method: 'string', admin: 'boolean', client: 'string' },
    audited: true,
    help: 'a single sign-on sign-in (method `oidc`)',
  }),
  accessAdminRefused: event({
    name: 'access.admin_refused',
    level: 'warn',
    fields: { account: 'string', path: 'string' },
    audited: true,
    help: 'an account without the admin flag asked for an admin page or operation',
  }),
  deviceRevoked: event({
    name: 'device.revoked',
    level: 'info',
    fields: { account: 'string', client: 'string?', device: 'string', reason: 'string?' },
    audited: true,
    help: 'a device was revoked, by an account or by the stale sweep (`system`, reason `stale`)',
    webhook: 'all',
  }),
  runDeleted: event({
    name: 'run.deleted',
    level: 'info',
    fields: { ...ACTOR, device: 'string', run: 'string' },
    audited: true,
    help: 'a run was deleted',
    webhook: 'all',
  }),
  enrollTokenMinted: event({
    name: 'enroll_token.minted',
    level: 'info',
    fields: { ...ACTOR, owner: 'string', token: 'string', uses: 'number', max_privacy: 'string', approval: 'string' },
    audited: true,
    help: 'an enrollment token was minted (its public id, never the token; `approval`: `automatic` or `required`)',
    webhook: 'all',
  }),
  // docs/contract.md section 9: the console's actions.
  deviceRenamed: event({
    name: 'device.renamed',
    level: 'info',
    fields: { ...ACTOR, device: 'string', name: 'string' },
    audited: true,
    help: 'a device was renamed',
    webhook: 'all',
  }),
  deviceDeleted: event({
    name: 'device.deleted',
    level: 'info',
    fields: { ...ACTOR, device: 'string' },
    audited: true,
    help: 'a revoked device and its runs were deleted',
    webhook: 'all',
  }),
  // docs/contract.md section 19: handing over.
  deviceOwnerChanged: event({
    name: 'device.owner_changed',
    level: 'info',
    fields: { ...ACTOR, device: 'string', from: 'string', to: 'string', reason: 'string?' },
    audited: true,
    help: 'an administrator handed a device over from one owner to another (a subject or `group:<name>`); its runs went with it. `reason` `left` when its owner was disabled with `hand_over_to`',
    webhook: 'all',
  }),
  // docs/contract.md section 12.
  deviceLabelled: event({
    name: 'device.labelled',
    level: 'info',
    fields: { ...ACTOR, device: 'string', keys: 'string' },
    audited: true,
    help: "a device's labels were changed (`keys`: the keys added, changed or removed, comma-separated)",
    webhook: 'all',
  }),
  enrollTokenRevoked: event({
    name: 'enroll_token.revoked',
    level: 'info',
    fields: { ...ACTOR, token: 'string' },
    audited: true,
    help: 'an outstanding enrollment token was revoked',
    webhook: 'all',
  }),
  enrollRefused: event({
    name: 'enroll.refused',
    level: 'warn',
    fields: { client: 'string', ...COUNT },
    audited: true,
    help: 'an enrollment was refused: its token unknown, used up, revoked or expired (one answer for all); logged each time, audited at most once a minute per client address with `count` (docs/contract.md section 23)',
    openRefusal: true,
  }),
  deviceEnrolled: event({
    name: 'device.enrolled',
    level: 'info',
    fields: { client: 'string', device: 'string', owner: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: 'a device enrolled with a token',
    webhook: 'all',
  }),
  // docs/contract.md section 16: approval.
  devicePending: event({
    name: 'device.pending',
    level: 'info',
    fields: { client: 'string', device: 'string', owner: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: 'a device enrolled with a token minted with `approval=required`: it waits for an administrator',
    webhook: 'all',
  }),
  deviceApproved: event({
    name: 'device.approved',
    level: 'info',
    fields: { ...ACTOR, device: 'string' },
    audited: true,
    help: 'an administrator approved a pending device',
    webhook: 'all',
  }),
  deviceRejected: event({
    name: 'device.rejected',
    level: 'info',
    fields: { ...ACTOR, device: 'string' },
    audited: true,
    help: 'an administrator rejected a pending device: it is revoked',
    webhook: 'all',
  }),
  // docs/contract.md section 16: credential rotation.
  deviceCredentialRotated: event({
    name: 'device.credential_rotated',
    level: 'info',
    fields: { account: 'string', client: 'string', device: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: 'a device replaced its credential (`POST /v1/credential`; `account`: its owner); the old one works until the new one is used, or 10 minutes',
    webhook: 'all',
  }),
  deviceCredentialReissued: event({
    name: 'device.credential_reissued',
    level: 'warn',
    fields: { account: 'string', client: 'string', device: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: 'the credential a rotation replaced asked to rotate again, within its overlap, and was given the same new credential (a lost answer, a racing process of the device, or a second holder of the old credential: compare `client` with the rotation)',
    webhook: 'all',
  }),
  deviceRotationAsked: event({
    name: 'device.rotation_asked',
    level: 'info',
    fields: { ...ACTOR, device: 'string' },
    audited: true,
    help: 'an administrator asked a device to rotate its credential: its next answer carries `Paddock-Rotate`',
    webhook: 'all',
  }),
  deviceCredentialExpired: event({
    name: 'device.credential_expired',
    level: 'warn',
    fields: { account: 'string', client: 'string', device: 'string', issued_at: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: 'a device presented a credential older than PADDOCK_CREDENTIAL_MAX_AGE (once per credential); it must be enrolled again',
    webhook: 'all',
  }),
  deviceCredentialReused: event({
    name: 'device.credential_reused',
    level: 'warn',
    fields: { account: 'string', client: 'string', device: 'string', replaced_at: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: 'a credential a rotation replaced (at `replaced_at`) was presented after its overlap: a copy of it is in other hands, and the device is pending with the reason `credential reused` until an administrator approves or rejects it (once per such change)',
    webhook: 'all',
  }),
  // docs/contract.md section 10.
  // docs/contract.md section 15: collection requests.
  collectionCreated: event({
    name: 'collection.created',
    level: 'info',
    fields: { ...ACTOR, collection: 'string', privacy: 'string', targets: 'number', skipped: 'number' },
    audited: true,
    help: 'an account asked devices for a run: the collection, how many devices it reached and how many of them it skipped',
    webhook: 'all',
  }),
  collectionCancelled: event({
    name: 'collection.cancelled',
    level: 'info',
    fields: { ...ACTOR, collection: 'string', cancelled: 'number' },
    audited: true,
    help: 'an account cancelled a collection: its open targets (how many) were cancelled',
    webhook: 'all',
  }),
  collectionClosed: event({
    name: 'collection.closed',
    level: 'info',
    fields: {
      account: 'string',
      collection: 'string',
      fulfilled: 'number',
      declined: 'number',
      expired: 'number',
      cancelled: 'number',
      skipped: 'number',
    },
    audited: true,
    help: 'a collection has no open target left (account: who created it); its targets by final state',
    webhook: 'all',
  }),
  requestFulfilled: event({
    name: 'request.fulfilled',
    level: 'info',
    fields: { account: 'string', device: 'string', collection: 'string', run: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: "a device answered a collection's request with a run (account: the device's owner)",
    webhook: 'all',
  }),
  requestDeclined: event({
    name: 'request.declined',
    level: 'info',
    fields: { account: 'string', device: 'string', collection: 'string', reason: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: "a device declined a collection's request, with its reason (account: the device's owner)",
    webhook: 'all',
  }),
  runRefusedPrivacy: event({
    name: 'run.refused_privacy',
    level: 'warn',
    fields: { account: 'string', device: 'string', run: 'string', privacy: 'string', max_privacy: 'string' },
    audited: true,
    auditAccount: BY_DEVICE,
    help: "an upload above its device's privacy ceiling was refused",
    webhook: 'all',
  }),
  runDownloaded: event({
    name: 'run.downloaded',
    level: 'info',
    fields: { ...ACTOR, device: 'string', run: 'string' },
    audited: true,
    help: "a run's bytes were downloaded",
  }),
  runsSwept: event({
    name: 'runs.swept',
    level: 'info',
    fields: { account: 'string', ...PER_LEVEL, bytes: 'number' },
    audited: true,
    help: 'the retention sweep deleted expired runs (counts per privacy level, bytes)',
    webhook: 'all',
  }),
  // docs/contract.md section 11.
  accessTokenCreated: event({
    name: 'access_token.created',
    level: 'info',
    fields: { ...ACTOR, token: 'string', scope: 'string' },
    audited: true,
    help: 'a personal access token was created (its public id and scope)',
  }),
  accessTokenUsed: event({
    name: 'access_token.used',
    level: 'info',
    fields: { ...ACTOR, token: 'string' },
    audited: true,
    help: 'a personal access token was used from a new client address',
  }),
  accessTokenRevoked: event({
    name: 'access_token.revoked',
    level: 'info',
    fields: { ...ACTOR, token: 'string' },
    audited: true,
    help: 'a personal access token was revoked',
  }),
  // docs/contract.md section 14: the break-glass account's second factor.
  totpEnrolled: event({
    name: 'totp.enrolled',
    level: 'info',
    fields: { ...ACTOR, sessions: 'number' },
    audited: true,
    help: 'the break-glass account enrolled a TOTP second factor (confirmed by a code); its other sessions ended (how many)',
  }),
  totpDisabled: event({
    name: 'totp.disabled',
    level: 'info',
    fields: { ...ACTOR, method: 'string', sessions: 'number' },
    audited: true,
    help: 'the break-glass account removed its second factor with a code (method `totp` or `recovery`); its other sessions ended (how many)',
  }),
  totpReset: event({
    name: 'totp.reset',
    level: 'warn',
    fields: { account: 'string', subject: 'string', sessions: 'number' },
    audited: true,
    help: '`paddock reset-admin-totp` removed the second factor of `subject` (account `system`) and ended its sessions (how many)',
  }),
  passwordChanged: event({
    name: 'password.changed',
    level: 'warn',
    fields: { account: 'string', subject: 'string', sessions: 'number' },
    audited: true,
    help: 'the break-glass password of `subject` was changed on the server (`paddock set-admin-password` or a new `PADDOCK_ADMIN_PASSWORD`, account `system`); its sessions ended (how many)',
  }),
  // docs/contract.md section 16: the control key every device pins.
  controlKeyRotated: event({
    name: 'control_key.rotated',
    level: 'warn',
    fields: {
      account: 'string',
      retired_pin: 'string',
      pin: 'string',
      next_pin: 'string',
      compromised: 'boolean',
      retired_next_pin: 'string?',
    },
    audited: true,
    help: '`paddock rotate-control-key` made the next control key current (`pin`, serving within 60 s) and a new next key (`next_pin`); `retired_pin` is no longer served (account `system`). With `--compromised` (`compromised` true) both keys are new and the old next key (`retired_next_pin`) is dropped too: every device needs a new link',
  }),
  totpRecoveryUsed: event({
    name: 'totp.recovery_used',
    level: 'warn',
    fields: { ...ACTOR, left: 'number' },
    audited: true,
    help: 'a recovery code was used to sign in; `left` unused ones remain',
  }),
  // docs/contract.md section 13: the events webhooks carry that nothing else recorded, and the webhooks' own.
  deviceStale: event({
    name: 'device.stale',
    level: 'info',
    fields: { account: 'string', device: 'string', last_seen: 'string' },
    audited: false,
    help: 'a device has not called for PADDOCK_STALE_AFTER (sent once until it calls again)',
    webhook: 'all',
  }),
  runStored: event({
    name: 'run.stored',
    level: 'debug',
    fields: { account: 'string', device: 'string', run: 'string', privacy: 'string', size: 'number' },
    audited: false,
    help: 'a run was stored (webhooks: only when named, never in `*`)',
    webhook: 'opt-in',
  }),
  runFlagged: event({
    name: 'run.flagged',
    level: 'warn',
    fields: { account: 'string', device: 'string', run: 'string', privacy: 'string' },
    audited: false,
    help: "the level check found content above a run's privacy level",
    webhook: 'all',
  }),
  runRefusedQuota: event({
    name: 'run.refused_quota',
    level: 'warn',
    fields: { account: 'string', device: 'string', run: 'string', size: 'number' },
    audited: false,
    help: "an upload was refused: its device's quota is used up",
    webhook: 'all',
  }),
  webhookTest: event({
    name: 'webhook.test',
    level: 'info',
    fields: { ...ACTOR, webhook: 'string' },
    audited: true,
    help: 'a test message was queued for one webhook endpoint',
    webhook: 'all',
  }),
  webhookCreated: event({
    name: 'webhook.created',
    level: 'info',
    fields: { ...ACTOR, webhook: 'string', url: 'string', events: 'string' },
    audited: true,
    help: 'a webhook endpoint was added (never its secret)',
  }),
  webhookEnabled: event({
    name: 'webhook.enabled',
    level: 'info',
    fields: { ...ACTOR, webhook: 'string' },
    audited: true,
    help: 'a webhook endpoint was enabled',
  }),
  webhookDisabled: event({
    name: 'webhook.disabled',
    level: 'warn',
    fields: { ...ACTOR, webhook: 'string', reason: 'string?' },
    audited: true,
    help: 'a webhook endpoint was disabled, by an account or after failing for PADDOCK_WEBHOOK_DISABLE_AFTER (`system`)',
  }),
  webhookDeleted: event({
    name: 'webhook.deleted',
    level: 'info',
    fields: { ...ACTOR, webhook: 'string' },
    audited: true,
    help: 'a webhook endpoint and its deliveries were deleted',
  }),
  webhookSecretRotated: event({
    name: 'webhook.secret_rotated',
    level: 'info',
    fields: { ...ACTOR, webhook: 'string' },
    audited: true,
    help: "a webhook endpoint's signing secret was replaced (the old one signs too for 24 hours)",
  }),
  webhookRedelivered: event({
    name: 'webhook.redelivered',
    level: 'info',
    fields: { ...ACTOR, webhook: 'string', message: 'string' },
    audited: true,
    help: 'a message was queued again for one endpoint, with the same message id',
  }),
  webhookAttempted: event({
    name: 'webhook.attempted',
    level: 'debug',
    fields: {
      webhook: 'string',
      type: 'string',
      message: 'string',
      outcome: 'string',
      status: 'number?',
      error: 'string?',
    },
    audited: false,
    help: 'a delivery attempt ended (outcome `delivered`, `retrying` or `failed`)',
  }),
  // docs/contract.md section 14: sessions, accounts, token scope.
  loginRefusedDisabled: event({
    name: 'login.refused_disabled',
    level: 'warn',
    fields: { account: 'string', method: 'string', client: 'string' },
    audited: true,
    help: 'a sign-in (method `oidc` or `local`) of a disabled account was refused',
  }),
  sessionEnded: event({
    name: 'session.ended',
    level: 'info',
    fields: { ...ACTOR, session: 'string' },
    audited: true,
    help: 'an account ended one of its sessions from the sessions page (its public id)',
  }),
  sessionEndedByProvider: event({
    name: 'session.ended_by_provider',
    level: 'info',
    fields: { account: 'string', sessions: 'number' },
    audited: true,
    help: 'the identity provider ended a sign-in by back-channel logout (docs/contract.md section 17): the sessions of `account` it had started (how many)',
  }),
  sessionOthersEnded: event({
    name: 'session.others_ended',
    level: 'info',
    fields: { ...ACTOR, sessions: 'number' },
    audited: true,
    help: 'an account ended all its sessions but the one it asked from (how many)',
  }),
  accountDisabled: event({
    name: 'account.disabled',
    level: 'info',
    fields: { ...ACTOR, subject: 'string', sessions: 'number' },
    audited: true,
    help: 'an administrator disabled an account: its sessions ended (how many), its tokens and sign-in refused',
  }),
  accountEnabled: event({
    name: 'account.enabled',
    level: 'info',
    fields: { ...ACTOR, subject: 'string' },
    audited: true,
    help: 'an administrator enabled a disabled account again',
  }),
  // docs/contract.md section 20: provisioning over SCIM, acted by the scim token's account.
  scimUserCreated: event({
    name: 'scim.user_created',
    level: 'info',
    fields: { ...SCIM_USER, active: 'boolean' },
    audited: true,
    help: 'the identity provider provisioned a user over SCIM (its SCIM id and userName)',
    webhook: 'all',
  }),
  scimUserUpdated: event({
    name: 'scim.user_updated',
    level: 'info',
    fields: { ...SCIM_USER, changed: 'string' },
    audited: true,
    help: "the identity provider changed a SCIM user (`changed`: the attributes' names)",
    webhook: 'all',
  }),
  scimUserDeactivated: event({
    name: 'scim.user_deactivated',
    level: 'info',
    fields: { ...SCIM_USER, handed_over: 'number', to: 'string?' },
    audited: true,
    help: 'the identity provider set a SCIM user inactive: its account (`subject`, once it signed in) was disabled, and its devices handed over to `to` when PADDOCK_SCIM_HAND_OVER_TO is set',
    webhook: 'all',
  }),
  scimUserReactivated: event({
    name: 'scim.user_reactivated',
    level: 'info',
    fields: SCIM_USER,
    audited: true,
    help: 'the identity provider set a SCIM user active again: its account was enabled',
    webhook: 'all',
  }),
  scimUserDeleted: event({
    name: 'scim.user_deleted',
    level: 'info',
    fields: { ...SCIM_USER, handed_over: 'number', to: 'string?' },
    audited: true,
    help: 'the identity provider deleted a SCIM user: its account stays, disabled, and its devices were handed over as on deactivation',
    webhook: 'all',
  }),
  scimUserLinked: event({
    name: 'scim.user_linked',
    level: 'info',
    fields: { account: 'string', client: 'string', user: 'string', userName: 'string' },
    audited: true,
    help: 'an OIDC sign-in matched a SCIM user by PADDOCK_SCIM_USER_CLAIM: the account is that user from now on, its groups its SCIM groups',
    webhook: 'all',
  }),
  scimGroupCreated: event({
    name: 'scim.group_created',
    level: 'info',
    fields: { ...SCIM_GROUP, members: 'number' },
    audited: true,
    help: 'the identity provider created a SCIM group (`group:<displayName>`) with its members',
    webhook: 'all',
  }),
  scimGroupUpdated: event({
    name: 'scim.group_updated',
    level: 'info',
    fields: { ...SCIM_GROUP, changed: 'string', added: 'number', removed: 'number', renamed_from: 'string?' },
    audited: true,
    help: 'the identity provider changed a SCIM group: members added and removed, or renamed (its devices follow the new name)',
    webhook: 'all',
  }),
  scimGroupDeleted: event({
    name: 'scim.group_deleted',
    level: 'info',
    fields: SCIM_GROUP,
    audited: true,
    help: "the identity provider deleted a SCIM group: its members' accounts lose it, its devices stay `group:<name>`'s",
    webhook: 'all',
  }),
  accessScopeRefused: event({
    name: 'access.scope_refused',
    level: 'warn',
    fields: { ...ACTOR, token: 'string', path: 'string', scope: 'string' },
    audited: true,
    help: 'a `scim` token was used outside /scim/v2, or another token under it (docs/contract.md section 20)',
  }),
  accessTokenRefused: event({
    name: 'access_token.refused',
    level: 'warn',
    fields: { ...ACTOR, token: 'string', reason: 'string' },
    audited: true,
    help: 'a live token was refused for its account: `disabled`, `sign_in_too_old` or `never_signed_in`',
  }),
  accessReadOnlyRefused: event({
    name: 'access.read_only_refused',
    level: 'warn',
    fields: { ...ACTOR, token: 'string', path: 'string' },
    audited: true,
    help: 'a `read` token asked for a change (any API method but GET and HEAD)',
  }),
  // Operational records: logged (and some counted), never audited.
  serverStarted: event({
    name: 'server.started',
    level: 'info',
    fields: { listen: 'string', base_url: 'string', version: 'string' },
    audited: false,
    help: 'the server listens',
  }),
  serverStopped: event({
    name: 'server.stopped',
    level: 'info',
    fields: {},
    audited: false,
    help: 'the server stopped',
  }),
  serverError: event({
    name: 'server.error',
    level: 'error',
    fields: { error: 'string' },
    audited: false,
    help: 'the server or a sign-out failed outside a request',
  }),
  requestFailed: event({
    name: 'request.failed',
    level: 'error',
    fields: { error: 'string', stack: 'string?', path: 'string' },
    audited: false,
    help: 'a request failed unexpectedly (answered 500)',
  }),
  storeUnavailable: event({
    name: 'store.unavailable',
    level: 'error',
    fields: { error: 'string', path: 'string' },
    audited: false,
    help: 'a request was refused because the store is unavailable',
  }),
  storeFull: event({
    name: 'store.full',
    level: 'error',
    fields: { error: 'string', path: 'string' },
    audited: false,
    help: "a request was refused because the store's disk is full",
  }),
  auditWriteFailed: event({
    name: 'audit.write_failed',
    level: 'error',
    fields: { audit_event: 'string', error: 'string' },
    audited: false,
    help: 'an audit record could not be stored (names its event, not its fields)',
  }),
  auditSyslogConnected: event({
    name: 'audit.syslog_connected',
    level: 'info',
    fields: { target: 'string', position: 'number' },
    audited: false,
    help: 'the audit trail is being sent to the syslog collector, from the record after `position` (a seq)',
  }),
  auditSyslogFailed: event({
    name: 'audit.syslog_failed',
    level: 'error',
    fields: { target: 'string', error: 'string', retry_in_ms: 'number' },
    audited: false,
    help: 'sending the audit trail to the syslog collector failed; it is tried again from the last record sent',
  }),
  sweeperFailed: event({
    name: 'sweeper.failed',
    level: 'error',
    fields: { error: 'string' },
    audited: false,
    help: 'a sweep (audit pruning, stale devices, retention) failed',
  }),
  webhookFailed: event({
    name: 'webhook.failed',
    level: 'error',
    fields: { error: 'string' },
    audited: false,
    help: "the webhook sender's claim, record or prune failed (retried at its next look)",
  }),
  deviceLastSeenFailed: event({
    name: 'device.last_seen_failed',
    level: 'warn',
    fields: { device: 'string', error: 'string' },
    audited: false,
    help: "a device's last-seen time could not be written",
  }),
  levelCheckFailed: event({
    name: 'level_check.failed',
    level: 'error',
    fields: { device: 'string?', run: 'string?', error: 'string' },
    audited: false,
    help: "a stored run's privacy level could not be checked",
  }),
  levelCheckSkipped: event({
    name: 'level_check.skipped',
    level: 'warn',
    fields: { device: 'string', run: 'string', queued: 'number' },
    audited: false,
    help: "a run's level check was skipped: the check's queue was full",
  }),
} as const;

export type Catalogue = typeof EVENTS;
export type EventKey = keyof Catalogue;
/** Any entry of the catalogue. */
export type AnyEvent = Catalogue[EventKey];
export type EventName = AnyEvent['name'];
/** The entry named `N`: `EventOf<'device.revoked'>`. */
export type EventOf<N extends EventName> = Extract<AnyEvent, { name: N }>;
/** The typed fields of the event named `N` (what a webhook delivery of it carries as `data`). */
export type EventFields<N extends EventName> = FieldsOf<EventOf<N>['fields']>;

/** Every entry, in the catalogue's order. */
export const CATALOGUE: readonly AnyEvent[] = Object.values(EVENTS);

const byName = new Map<string, AnyEvent>(CATALOGUE.map((entry) => [entry.name, entry]));

/** The entry of a name read from outside (a filter, a webhook subscription), or undefined. */
export function eventNamed(name: string): AnyEvent | undefined {
  return byName.get(name);
}

/** The audited events' names (the audit trail's filter and the API's `event` parameter). */
export const AUDITED_EVENTS: ReadonlySet<string> = new Set(CATALOGUE.filter((e) => e.audited).map((e) => e.name));

/** The events webhooks may subscribe to, in the catalogue's order. */
export const WEBHOOK_EVENTS: readonly AnyEvent[] = CATALOGUE.filter((e) => e.webhook !== undefined);
