/**
 * Every environment variable Paddock reads (docs/contract.md section 3), one row each: `paddock --help`,
 * the README check and loadConfig all read this table, so a setting is written down once.
 */
import { readCertificate, readCertificates, readPrivateKey } from './pem.ts';
import {
  parseAddressRanges,
  parseBase64Keys,
  parseBoolean,
  parseDuration,
  parseMetricsToken,
  parseSize,
  parseHostName,
  parseHttpUrlAsWritten,
  parseIssuer,
  parseListen,
  parseLogLevel,
  parsePassword,
  parsePositiveInt,
  parsePostgresUrl,
  parseSyslogTarget,
  parseText,
} from './parse.ts';
import { parseOwner } from '../domain/owners.ts';

/** An owner (docs/contract.md section 19), as parseOwner reads it anywhere else. */
function parseOwnerSetting(text: string): string {
  const parsed = parseOwner(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.owner;
}

interface Row<T> {
  variable: `PADDOCK_${string}`;
  /** One line for `paddock --help` and the README's meaning column. */
  help: string;
  parse: (text: string) => T;
}

/** A default written as an operator would write it, so it passes the row's own parser. */
interface WithDefault<T> extends Row<T> {
  default: string;
  /** A secret has no default: --help would print it. */
  secret?: never;
}

/** No default value: `unset` says what applies instead (derived by loadConfig, generated, or none). */
interface WithoutDefault<T> extends Row<T> {
  unset: string;
  /** Never echoed back in an error message. */
  secret?: boolean;
}

export type Setting<T = unknown> = WithDefault<T> | WithoutDefault<T>;

const lifetime = (text: string) => parsePositiveInt(text, 31_536_000);

/**
 * PADDOCK_ONLINE_WITHIN (docs/contract.md section 22): at least 3 minutes, so that a device holding a
 * request always counts as online by its last seen (domain/devices.ts, isOnline).
 */
function parseOnlineWithin(text: string): number {
  const ms = parseDuration(text);
  if (ms < 3 * 60_000) throw new Error('must be at least 3m (a device holding a request is seen every 3 minutes)');
  return ms;
}

export const settings = {
  listen: {
    variable: 'PADDOCK_LISTEN',
    default: '127.0.0.1:8080',
    help: 'host:port to listen on (port 0: any free port)',
    parse: parseListen,
  },
  dataDir: {
    variable: 'PADDOCK_DATA_DIR',
    default: './data',
    help: 'directory of the SQLite database (created with mode 0700)',
    parse: parseText(4096, /^[^\0]+$/),
  },
  databaseUrl: {
    variable: 'PADDOCK_DATABASE_URL',
    unset: 'SQLite in PADDOCK_DATA_DIR',
    secret: true,
    help: 'postgres://… URL: PostgreSQL instead of SQLite (several instances)',
    parse: parsePostgresUrl,
  },
  sealKeyFile: {
    variable: 'PADDOCK_SEAL_KEY_FILE',
    unset: '<PADDOCK_DATA_DIR>/seal.key, made at the first start (mode 0600)',
    help: 'the key that seals the secrets in the store: keep it (no database backup holds it), the same file on every instance',
    parse: parseText(4096, /^[^\0]+$/),
  },
  databasePool: {
    variable: 'PADDOCK_DATABASE_POOL',
    default: '10',
    help: 'PostgreSQL connections each instance keeps at most (1 to 100)',
    parse: (text: string) => parsePositiveInt(text, 100, ''),
  },
  baseUrl: {
    variable: 'PADDOCK_BASE_URL',
    unset: 'http:// (https:// with TLS) + the listen address',
    help: "the console's address, used as written (the OIDC redirect's base)",
    parse: parseHttpUrlAsWritten,
  },
  secure: {
    variable: 'PADDOCK_SECURE',
    unset: 'false only for http:// on a loopback host, else true',
    help: 'true/false: cookies marked Secure (false only on loopback http://)',
    parse: parseBoolean,
  },
  adminUser: {
    variable: 'PADDOCK_ADMIN_USER',
    default: 'admin',
    help: 'break-glass username',
    parse: parseText(64, /^[A-Za-z0-9._@-]+$/),
  },
  adminPassword: {
    variable: 'PADDOCK_ADMIN_PASSWORD',
    unset: 'generated once, printed once on stderr',
    secret: true,
    help: 'sets the break-glass password at start (at least 12 characters)',
    parse: parsePassword,
  },
  oidcIssuer: {
    variable: 'PADDOCK_OIDC_ISSUER',
    unset: 'none (OIDC off)',
    help: 'issuer URL of the OpenID provider (https unless loopback)',
    parse: parseIssuer,
  },
  oidcClientId: {
    variable: 'PADDOCK_OIDC_CLIENT_ID',
    unset: 'none',
    help: 'client id at the provider (needed with PADDOCK_OIDC_ISSUER)',
    parse: parseText(256),
  },
  oidcClientSecret: {
    variable: 'PADDOCK_OIDC_CLIENT_SECRET',
    unset: 'none',
    secret: true,
    help: 'client secret at the provider (a confidential client)',
    parse: parseText(1024),
  },
  oidcAdminGroup: {
    variable: 'PADDOCK_OIDC_ADMIN_GROUP',
    unset: 'none (nobody is an administrator through OIDC)',
    help: 'group whose members are administrators',
    parse: parseText(256, /^[^\0-\x1f\x7f]+$/),
  },
  oidcGroupsClaim: {
    variable: 'PADDOCK_OIDC_GROUPS_CLAIM',
    default: 'groups',
    help: "claim listing the account's groups",
    parse: parseText(256),
  },
  scimUserClaim: {
    variable: 'PADDOCK_SCIM_USER_CLAIM',
    default: 'preferred_username',
    help: "identity-token claim that equals a SCIM user's userName (any case): the account that signs in with it is that user",
    parse: parseText(256),
  },
  scimRequired: {
    variable: 'PADDOCK_SCIM_REQUIRED',
    default: 'false',
    help: 'true/false: an OIDC sign-in whose claim matches no active SCIM user is refused (403)',
    parse: parseBoolean,
  },
  scimHandOverTo: {
    variable: 'PADDOCK_SCIM_HAND_OVER_TO',
    unset: "a SCIM user's devices stay with it when it is deactivated or deleted",
    help: 'owner (a subject or group:<name>) that receives the devices of a SCIM user deactivated or deleted',
    parse: parseOwnerSetting,
  },
  oidcEnabled: {
    variable: 'PADDOCK_OIDC_ENABLED',
    default: 'true',
    help: 'true/false: whether sign-in through the provider is offered',
    parse: parseBoolean,
  },
  serverName: {
    variable: 'PADDOCK_SERVER_NAME',
    default: 'paddock',
    help: 'name returned by GET /v1/discover',
    parse: parseText(256, /^[^\0-\x1f\x7f]+$/),
  },
  controlUrl: {
    variable: 'PADDOCK_CONTROL_URL',
    unset: 'the BaseURL (named PADDOCK_CONTROL_HOST when that is set)',
    help: 'address devices connect to, returned by discovery',
    parse: parseHttpUrlAsWritten,
  },
  tlsCert: {
    variable: 'PADDOCK_TLS_CERT',
    unset: 'none (plain HTTP, on a loopback address only)',
    help: "PEM certificate for BaseURL's host name; setting it turns TLS on",
    parse: readCertificate,
  },
  tlsKey: {
    variable: 'PADDOCK_TLS_KEY',
    unset: 'none',
    help: 'PEM private key of PADDOCK_TLS_CERT',
    parse: readPrivateKey,
  },
  controlHost: {
    variable: 'PADDOCK_CONTROL_HOST',
    unset: 'the host of PADDOCK_CONTROL_URL',
    help: "host name devices connect to (with TLS: a DNS name, not BaseURL's)",
    parse: parseHostName,
  },
  controlCert: {
    variable: 'PADDOCK_CONTROL_TLS_CERT',
    unset: 'self-signed, generated once and kept in the store',
    help: 'PEM certificate for the control host name',
    parse: readCertificate,
  },
  controlKey: {
    variable: 'PADDOCK_CONTROL_TLS_KEY',
    unset: 'none',
    help: 'PEM private key of PADDOCK_CONTROL_TLS_CERT',
    parse: readPrivateKey,
  },
  sessionKeys: {
    variable: 'PADDOCK_SESSION_KEYS',
    unset: 'generated once, kept in the store',
    secret: true,
    help: 'base64 keys (32+ bytes), comma-separated; first signs, all verify',
    parse: parseBase64Keys,
  },
  sessionTtlSeconds: {
    variable: 'PADDOCK_SESSION_TTL',
    default: '43200',
    help: 'session lifetime, seconds',
    parse: lifetime,
  },
  enrollTokenTtlSeconds: {
    variable: 'PADDOCK_ENROLL_TOKEN_TTL',
    default: '86400',
    help: 'enrollment token lifetime, seconds',
    parse: lifetime,
  },
  staleAfterMs: {
    variable: 'PADDOCK_STALE_AFTER',
    default: '30d',
    help: 'a device not seen for this long is stale (a duration: 90m, 12h, 30d)',
    parse: parseDuration,
  },
  onlineWithinMs: {
    variable: 'PADDOCK_ONLINE_WITHIN',
    default: '5m',
    help: 'a device seen within this long is online (a duration, at least 3m: a device holding a request is seen that often)',
    parse: parseOnlineWithin,
  },
  credentialRotateAfterMs: {
    variable: 'PADDOCK_CREDENTIAL_ROTATE_AFTER',
    default: '30d',
    help: 'a device whose credential is older than this is asked to rotate it (Paddock-Rotate; a duration)',
    parse: parseDuration,
  },
  credentialMaxAgeMs: {
    variable: 'PADDOCK_CREDENTIAL_MAX_AGE',
    unset: 'credentials never expire',
    help: 'a device credential older than this is refused (401): the device must enroll again (a duration)',
    parse: parseDuration,
  },
  accountSignInMaxAgeMs: {
    variable: 'PADDOCK_ACCOUNT_SIGNIN_MAX_AGE',
    default: '90d',
    help: "an account's tokens are refused while its latest sign-in is older than this (a duration)",
    parse: parseDuration,
  },
  metricsToken: {
    variable: 'PADDOCK_METRICS_TOKEN',
    unset: 'GET /metrics answers 404',
    secret: true,
    help: 'bearer token for GET /metrics (32 to 256 printable characters)',
    parse: parseMetricsToken,
  },
  deviceQuotaBytes: {
    variable: 'PADDOCK_DEVICE_QUOTA',
    unset: 'no quota',
    help: 'bytes a device may store (512MiB, 2GiB); more is refused with 507',
    parse: parseSize,
  },
  logLevel: {
    variable: 'PADDOCK_LOG_LEVEL',
    default: 'info',
    help: 'debug, info, warn or error',
    parse: parseLogLevel,
  },
  auditRetentionMs: {
    variable: 'PADDOCK_AUDIT_RETENTION',
    default: '365d',
    help: 'how long audit records are kept, a duration such as 365d',
    parse: parseDuration,
  },
  revokeStaleAfterMs: {
    variable: 'PADDOCK_REVOKE_STALE_AFTER',
    unset: 'off',
    help: 'devices not seen for this duration are revoked (as system)',
    parse: parseDuration,
  },
  retentionFullMs: {
    variable: 'PADDOCK_RETENTION_FULL',
    unset: 'kept',
    help: 'runs at full older than this duration are deleted by the sweeper',
    parse: parseDuration,
  },
  retentionRedactedMs: {
    variable: 'PADDOCK_RETENTION_REDACTED',
    unset: 'kept',
    help: 'runs at redacted older than this duration are deleted by the sweeper',
    parse: parseDuration,
  },
  retentionMinimalMs: {
    variable: 'PADDOCK_RETENTION_MINIMAL',
    unset: 'kept',
    help: 'runs at minimal older than this duration are deleted by the sweeper',
    parse: parseDuration,
  },
  sweepIntervalMs: {
    variable: 'PADDOCK_SWEEP_INTERVAL',
    default: '10m',
    help: 'how often the retention sweep runs (one instance at a time)',
    parse: parseDuration,
  },
  auditSyslog: {
    variable: 'PADDOCK_AUDIT_SYSLOG',
    unset: 'off',
    help: 'tcp:// or tls://host:port: audit records also go to this collector',
    parse: parseSyslogTarget,
  },
  auditSyslogCa: {
    variable: 'PADDOCK_AUDIT_SYSLOG_CA',
    unset: "the system's CAs",
    help: "PEM file of the CA(s) of the tls:// syslog collector's certificate",
    parse: readCertificates,
  },
  proxyProtocolFrom: {
    variable: 'PADDOCK_PROXY_PROTOCOL_FROM',
    unset: 'no PROXY protocol accepted',
    help: 'addresses or CIDR ranges of load balancers (comma-separated) that must send a PROXY protocol v1/v2 header',
    parse: parseAddressRanges,
  },
  webhookAllowPrivate: {
    variable: 'PADDOCK_WEBHOOK_ALLOW_PRIVATE',
    default: 'false',
    help: 'true lets webhooks reach loopback, private and link-local addresses, and http:// (labs, tests)',
    parse: parseBoolean,
  },
  webhookDisableAfterMs: {
    variable: 'PADDOCK_WEBHOOK_DISABLE_AFTER',
    default: '5d',
    help: 'a webhook endpoint failing for this duration is disabled (audited)',
    parse: parseDuration,
  },
  webhookRetentionMs: {
    variable: 'PADDOCK_WEBHOOK_RETENTION',
    default: '30d',
    help: 'delivered and failed webhook deliveries are kept this long, with their attempts',
    parse: parseDuration,
  },
} satisfies Record<string, Setting>;

export type SettingName = keyof typeof settings;

/** A setting's value as its parser returns it; undefined when unset and there is no default. */
type ValueOf<S> = S extends Row<infer T> ? (S extends { default: string } ? T : T | undefined) : never;

/** Every setting's value, typed by the table. */
export type Settings = { [K in SettingName]: ValueOf<(typeof settings)[K]> };
