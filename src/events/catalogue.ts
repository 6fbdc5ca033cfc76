/**
 * The event catalogue (docs/contract.md sections 8 and 13): every event Paddock logs, audits or counts is
 * named here once, with its log level, its fields and their types, and whether the audit trail
 * stores it. The log, the audit trail, the metrics (and later the webhook deliveries) subscribe to
 * it (bus.ts); handlers emit `EVENTS.deviceRevoked` and TypeScript checks the fields. A new event
 * is one entry here and the line that emits it; the README's event table is checked against it.
 *
 * An audited event's row (docs/contract.md section 9) is derived the same way for every event: `account`,
 * `client`, `device` and `run` go to their columns, the other fields to a short `detail`; an entry
 * with `auditAccount` names the account from another field (a break-glass sign-in's `user`).
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
}

function event<const N extends string, const S extends FieldSpec>(entry: EventEntry<N, S>): EventEntry<N, S> {
  return entry;
}

/**
 * What an action says about who did it and from where (`client`: docs/contract.md section 8). An account
 * acting through a door always has a client; the system actor (the sweepers) has none.
 */
const ACTOR = { account: 'string', client: 'string?' } as const;
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
    fields: { user: 'string', client: 'string' },
    audited: true,
    auditAccount: { prefix: 'local:', field: 'user' },
    help: 'a break-glass sign-in was refused',
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
    fields: { client: 'string', error: 'string' },
    audited: true,
    help: "the identity provider's code exchange failed",
  }),
  loginOidcTokenRejected: event({
    name: 'login.oidc.token_rejected',
    level: 'warn',
    fields: { client: 'string', error: 'string' },
    audited: true,
    help: 'the identity token did not verify',
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
  }),
  runDeleted: event({
    name: 'run.deleted',
    level: 'info',
    fields: { ...ACTOR, device: 'string', run: 'string' },
    audited: true,
    help: 'a run was deleted',
  }),
  enrollTokenMinted: event({
    name: 'enroll_token.minted',
    level: 'info',
    fields: { ...ACTOR, owner: 'string', token: 'string', uses: 'number', max_privacy: 'string' },
    audited: true,
    help: 'an enrollment token was minted (its public id, never the token)',
  }),
  // docs/contract.md section 9: the console's actions.
  deviceRenamed: event({
    name: 'device.renamed',
    level: 'info',
    fields: { ...ACTOR, device: 'string', name: 'string' },
    audited: true,
    help: 'a device was renamed',
  }),
  deviceDeleted: event({
    name: 'device.deleted',
    level: 'info',
    fields: { ...ACTOR, device: 'string' },
    audited: true,
    help: 'a revoked device and its runs were deleted',
  }),
  // docs/contract.md section 12.
  deviceLabelled: event({
    name: 'device.labelled',
    level: 'info',
    fields: { ...ACTOR, device: 'string', keys: 'string' },
    audited: true,
    help: "a device's labels were changed (`keys`: the keys added, changed or removed, comma-separated)",
  }),
  enrollTokenRevoked: event({
    name: 'enroll_token.revoked',
    level: 'info',
    fields: { ...ACTOR, token: 'string' },
    audited: true,
    help: 'an outstanding enrollment token was revoked',
  }),
  deviceEnrolled: event({
    name: 'device.enrolled',
    level: 'info',
    fields: { client: 'string', device: 'string', owner: 'string' },
    audited: true,
    help: 'a device enrolled with a token',
  }),
  // docs/contract.md section 10.
  runRefusedPrivacy: event({
    name: 'run.refused_privacy',
    level: 'warn',
    fields: { account: 'string', device: 'string', run: 'string', privacy: 'string', max_privacy: 'string' },
    audited: true,
    help: "an upload above its device's privacy ceiling was refused",
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
  }),
  // docs/contract.md section 11.
  accessTokenCreated: event({
    name: 'access_token.created',
    level: 'info',
    fields: { ...ACTOR, token: 'string' },
    audited: true,
    help: 'a personal access token was created (its public id)',
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
  sweeperFailed: event({
    name: 'sweeper.failed',
    level: 'error',
    fields: { error: 'string' },
    audited: false,
    help: 'a sweep (audit pruning, stale devices, retention) failed',
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
