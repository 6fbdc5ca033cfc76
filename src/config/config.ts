/**
 * Configuration from the environment (docs/contract.md section 3): the settings table's values, plus the
 * rules between them. A bad value throws ConfigError naming the variable, so `paddock serve` never
 * starts half-configured.
 */
import { isIP } from 'node:net';
import { join } from 'node:path';
import { ConfigError, isLoopbackHost } from './parse.ts';
import { type PemPair, pemPair } from './pem.ts';
import { type Env, readAll, reader } from './read.ts';
import { type SettingName, type Settings, settings } from './variables.ts';
import { version } from '../version.ts';

/** Settings that the rules below combine into the derived fields, rather than passing them on. */
const combined = [
  'baseUrl',
  'secure',
  'oidcIssuer',
  'oidcClientId',
  'oidcClientSecret',
  'oidcAdminGroup',
  'oidcGroupsClaim',
  'oidcEnabled',
  'controlUrl',
  'tlsCert',
  'tlsKey',
  'controlHost',
  'controlCert',
  'controlKey',
  'sealKeyFile',
] as const satisfies readonly SettingName[];

/** The settings no rule combines, passed on as they are. */
type PassedOn = Omit<Settings, (typeof combined)[number]>;

export type Config = PassedOn & {
  baseUrl: string;
  secure: boolean;
  oidc: {
    issuer: string | undefined;
    clientId: string;
    clientSecret: string;
    adminGroup: string | undefined;
    groupsClaim: string;
    enabled: boolean;
  };
  controlUrl: string;
  /** The admin host's certificate and key: when set, Paddock terminates TLS itself. */
  tls: PemPair | undefined;
  /** The host name devices connect to; its requests get the control certificate (by SNI). */
  controlHost: string;
  /** The control certificate and key from PEM files; unset: generated once and kept in the store. */
  controlTls: PemPair | undefined;
  /** The seal key's file (docs/contract.md section 23): as set, or `seal.key` in the data directory. */
  sealKeyFile: string;
  version: string;
  /** Which URLs were derived from a listen address on port 0, so name the port bound later. */
  followsListenPort: { baseUrl: boolean; controlUrl: boolean };
};

/** Reads and validates the whole configuration; throws ConfigError on the first bad value. */
export function loadConfig(env: Env): Config {
  const get = reader(env);
  const listen = get('listen');
  const tlsConfigured = (env[settings.tlsCert.variable] ?? '') !== '';
  // BaseURL as written (it must equal what is registered at the identity provider), or derived
  // from the listen address; for port 0, from the port actually bound (see bindListenPort).
  const configuredBase = get('baseUrl');
  const baseUrl = configuredBase ?? listenUrl(tlsConfigured, listen);
  const base = new URL(baseUrl);
  const loopbackHttp = base.protocol === 'http:' && isLoopbackHost(base.hostname);
  const secure = get('secure') ?? !loopbackHttp;
  if (!secure && !loopbackHttp) {
    throw new ConfigError('PADDOCK_SECURE', 'may be false only when PADDOCK_BASE_URL is http:// on a loopback host');
  }
  const issuer = get('oidcIssuer');
  // The specification's ClientID and ClientSecret are strings, empty when not configured.
  const clientId = get('oidcClientId') ?? '';
  if (issuer !== undefined && clientId === '') {
    throw new ConfigError('PADDOCK_OIDC_CLIENT_ID', 'must be set when PADDOCK_OIDC_ISSUER is set');
  }
  const tls = pemPair(get('tlsCert'), get('tlsKey'), { cert: 'PADDOCK_TLS_CERT', key: 'PADDOCK_TLS_KEY' });
  const controlTls = pemPair(get('controlCert'), get('controlKey'), {
    cert: 'PADDOCK_CONTROL_TLS_CERT',
    key: 'PADDOCK_CONTROL_TLS_KEY',
  });
  if (!tls && !isLoopbackHost(listen.host)) {
    throw new ConfigError(
      'PADDOCK_LISTEN',
      'plain HTTP is served only on a loopback address; set PADDOCK_TLS_CERT and PADDOCK_TLS_KEY',
    );
  }
  const controlHostSetting = get('controlHost');
  const controlUrlSetting = get('controlUrl');
  const controlUrl = controlUrlSetting ?? derivedControlUrl(baseUrl, controlHostSetting);
  const controlHost = controlHostSetting ?? hostOfUrl(controlUrl);
  if (tls) {
    checkTlsNames(hostOfUrl(baseUrl), controlHost);
    // Devices connect to ControlURL and ask for its host's certificate: it must be the control name.
    if (hostOfUrl(controlUrl) !== controlHost) {
      throw new ConfigError(
        'PADDOCK_CONTROL_URL',
        `must name the control host (${controlHost}) when TLS is configured: devices are given the certificate of the name they connect to`,
      );
    }
  }
  const syslog = get('auditSyslog');
  if (get('auditSyslogCa') !== undefined && syslog?.scheme !== 'tls') {
    throw new ConfigError('PADDOCK_AUDIT_SYSLOG_CA', 'is used only with a tls:// PADDOCK_AUDIT_SYSLOG');
  }
  const maxAge = get('credentialMaxAgeMs');
  // A credential must be asked to rotate (and have time to) before it expires, or every device would.
  if (maxAge !== undefined && maxAge <= get('credentialRotateAfterMs')) {
    throw new ConfigError(
      'PADDOCK_CREDENTIAL_MAX_AGE',
      'must be longer than PADDOCK_CREDENTIAL_ROTATE_AFTER (30d unless set), or devices expire before they are asked to rotate',
    );
  }
  const all = readAll(get);
  return {
    ...passedOn(all),
    baseUrl,
    secure,
    oidc: {
      issuer,
      clientId,
      clientSecret: all.oidcClientSecret ?? '',
      adminGroup: all.oidcAdminGroup,
      groupsClaim: all.oidcGroupsClaim,
      enabled: all.oidcEnabled,
    },
    controlUrl,
    tls,
    controlHost,
    controlTls,
    sealKeyFile: all.sealKeyFile ?? join(all.dataDir, 'seal.key'),
    version,
    followsListenPort: {
      baseUrl: configuredBase === undefined && listen.port === 0,
      controlUrl: configuredBase === undefined && listen.port === 0 && controlUrlSetting === undefined,
    },
  };
}

function passedOn(all: Settings): PassedOn {
  const isCombined = (name: string) => (combined as readonly string[]).includes(name);
  return Object.fromEntries(Object.entries(all).filter(([name]) => !isCombined(name))) as PassedOn;
}

/**
 * Under TLS the certificate is chosen by the server name, so the two sides need two names: with
 * one, browsers would be shown the control certificate (self-signed, pinned by devices) in place
 * of the operator's. A device connecting to an IP address sends no server name and would be given
 * the admin certificate, which its pin check refuses: the control side needs a DNS name.
 */
function checkTlsNames(adminHost: string, controlHost: string): void {
  if (controlHost === adminHost) {
    throw new ConfigError(
      'PADDOCK_CONTROL_HOST',
      `must name the control side with another host name than BaseURL's (${adminHost}) when TLS is configured`,
    );
  }
  if (isIP(controlHost) !== 0) {
    throw new ConfigError(
      'PADDOCK_CONTROL_HOST',
      'must be a DNS name, not an IP address, when TLS is configured (devices send no server name to an IP address)',
    );
  }
}

/** A URL's host name, lower case, without the brackets of an IPv6 literal. */
function hostOfUrl(url: string): string {
  return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

function listenUrl(tls: boolean, listen: { host: string; port: number }): string {
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  return `${tls ? 'https' : 'http'}://${host}:${listen.port}`;
}

/** ControlURL by default: BaseURL, or BaseURL's scheme and port with the control host name. */
function derivedControlUrl(baseUrl: string, controlHost: string | undefined): string {
  if (controlHost === undefined) return baseUrl;
  const base = new URL(baseUrl);
  return `${base.protocol}//${controlHost}${base.port ? `:${base.port}` : ''}`;
}

/**
 * The configuration once the server is bound: with `PADDOCK_LISTEN` on port 0 and no BaseURL
 * (or ControlURL) set, those derived from the listen address name the port actually bound.
 */
export function bindListenPort(config: Config, port: number): Config {
  const { followsListenPort: follows } = config;
  if (!follows.baseUrl) return config;
  const baseUrl = listenUrl(config.tls !== undefined, { host: config.listen.host, port });
  // The control host is the listen host unless PADDOCK_CONTROL_HOST named another.
  const controlHost = config.controlHost === hostOfUrl(baseUrl) ? undefined : config.controlHost;
  return {
    ...config,
    baseUrl,
    controlUrl: follows.controlUrl ? derivedControlUrl(baseUrl, controlHost) : config.controlUrl,
    followsListenPort: { baseUrl: false, controlUrl: false },
  };
}
