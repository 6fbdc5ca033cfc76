/**
 * Configuration from the environment (CONTRACT section 3), as one declarative table of options.
 * A bad value throws ConfigError naming the variable, so `paddock serve` never starts half-configured.
 */
import { isIP } from 'node:net';
import type { Level } from '../log/logger.ts';
import {
  ConfigError,
  isLoopbackHost,
  parseBase64Key,
  parseBoolean,
  parseHttpUrl,
  parseListen,
  parsePositiveInt,
} from './parse.ts';
import { version } from '../version.ts';
import { type PemPair, pemPair, readCertificate, readPrivateKey } from './pem.ts';

export interface Config {
  listen: { host: string; port: number };
  dataDir: string;
  databaseUrl: string | undefined;
  baseUrl: string;
  secure: boolean;
  adminUser: string;
  adminPassword: string | undefined;
  oidc: {
    issuer: string | undefined;
    clientId: string;
    clientSecret: string;
    adminGroup: string | undefined;
    groupsClaim: string;
    enabled: boolean;
  };
  serverName: string;
  controlUrl: string;
  /** The admin host's certificate and key: when set, Paddock terminates TLS itself. */
  tls: PemPair | undefined;
  /** The host name devices connect to; its requests get the control certificate (by SNI). */
  controlHost: string;
  /** The control certificate and key from PEM files; unset: generated once and kept in the store. */
  controlTls: PemPair | undefined;
  sessionKeys: Buffer[] | undefined;
  sessionTtlSeconds: number;
  enrollTokenTtlSeconds: number;
  logLevel: Level;
  version: string;
  /** Which URLs were derived from a listen address on port 0, so name the port bound later. */
  followsListenPort: { baseUrl: boolean; controlUrl: boolean };
}

type Env = Record<string, string | undefined>;

interface Option<T> {
  variable: string;
  /** Secrets are never echoed back in an error message. */
  secret?: boolean;
  parse: (text: string) => T;
}

function read<T>(env: Env, option: Option<T>): T | undefined {
  const text = env[option.variable];
  if (text === undefined || text === '') return undefined;
  try {
    return option.parse(text);
  } catch (err) {
    throw new ConfigError(option.variable, (err as Error).message);
  }
}

const text =
  (max: number, pattern = /^[\x21-\x7e]+$/) =>
  (value: string) => {
    if (value.length > max) throw new Error(`must be at most ${max} characters`);
    if (!pattern.test(value)) throw new Error('contains characters that are not allowed');
    return value;
  };

const options = {
  listen: { variable: 'PADDOCK_LISTEN', parse: parseListen },
  dataDir: { variable: 'PADDOCK_DATA_DIR', parse: text(4096, /^[^\0]+$/) },
  databaseUrl: {
    variable: 'PADDOCK_DATABASE_URL',
    secret: true,
    parse: (v: string) => {
      if (!/^postgres(ql)?:\/\/./.test(v)) throw new Error('must be a postgres:// or postgresql:// URL');
      return v;
    },
  },
  baseUrl: { variable: 'PADDOCK_BASE_URL', parse: parseHttpUrl },
  secure: { variable: 'PADDOCK_SECURE', parse: parseBoolean },
  adminUser: { variable: 'PADDOCK_ADMIN_USER', parse: text(64, /^[A-Za-z0-9._@-]+$/) },
  adminPassword: {
    variable: 'PADDOCK_ADMIN_PASSWORD',
    secret: true,
    parse: (v: string) => {
      if ([...v].length < 12) throw new Error('must have at least 12 characters');
      if (v.length > 1024) throw new Error('must be at most 1024 characters');
      return v;
    },
  },
  issuer: {
    variable: 'PADDOCK_OIDC_ISSUER',
    parse: (v: string) => {
      const url = parseHttpUrl(v);
      if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
        throw new Error('must use https unless the host is a loopback address');
      }
      return v;
    },
  },
  clientId: { variable: 'PADDOCK_OIDC_CLIENT_ID', parse: text(256) },
  clientSecret: { variable: 'PADDOCK_OIDC_CLIENT_SECRET', secret: true, parse: text(1024) },
  adminGroup: { variable: 'PADDOCK_OIDC_ADMIN_GROUP', parse: text(256, /^[^\0-\x1f\x7f]+$/) },
  groupsClaim: { variable: 'PADDOCK_OIDC_GROUPS_CLAIM', parse: text(256) },
  oidcEnabled: { variable: 'PADDOCK_OIDC_ENABLED', parse: parseBoolean },
  serverName: { variable: 'PADDOCK_SERVER_NAME', parse: text(256, /^[^\0-\x1f\x7f]+$/) },
  controlUrl: { variable: 'PADDOCK_CONTROL_URL', parse: (v: string) => (parseHttpUrl(v), v) },
  tlsCert: { variable: 'PADDOCK_TLS_CERT', parse: readCertificate },
  tlsKey: { variable: 'PADDOCK_TLS_KEY', parse: readPrivateKey },
  controlHost: {
    variable: 'PADDOCK_CONTROL_HOST',
    parse: (v: string) => {
      if (!/^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(v)) throw new Error('must be a host name');
      return v.toLowerCase();
    },
  },
  controlCert: { variable: 'PADDOCK_CONTROL_TLS_CERT', parse: readCertificate },
  controlKey: { variable: 'PADDOCK_CONTROL_TLS_KEY', parse: readPrivateKey },
  sessionKeys: {
    variable: 'PADDOCK_SESSION_KEYS',
    secret: true,
    parse: (v: string) => v.split(',').map((k) => parseBase64Key(k.trim())),
  },
  sessionTtl: { variable: 'PADDOCK_SESSION_TTL', parse: (v: string) => parsePositiveInt(v, 31_536_000) },
  enrollTokenTtl: {
    variable: 'PADDOCK_ENROLL_TOKEN_TTL',
    parse: (v: string) => parsePositiveInt(v, 31_536_000),
  },
  logLevel: {
    variable: 'PADDOCK_LOG_LEVEL',
    parse: (v: string): Level => {
      if (v === 'debug' || v === 'info' || v === 'warn' || v === 'error') return v;
      throw new Error('must be one of debug, info, warn, error');
    },
  },
} satisfies Record<string, Option<unknown>>;

/** Every variable this module reads, for `--help`. */
export const configVariables = Object.values(options).map((o) => o.variable);

/** Reads and validates the whole configuration; throws ConfigError on the first bad value. */
export function loadConfig(env: Env): Config {
  const listen = read(env, options.listen) ?? { host: '127.0.0.1', port: 8080 };
  const tlsConfigured = env.PADDOCK_TLS_CERT !== undefined && env.PADDOCK_TLS_CERT !== '';
  // BaseURL as written (it must equal what is registered at the identity provider), or derived
  // from the listen address; for port 0, from the port actually bound (see bindListenPort).
  const configuredBase = read(env, options.baseUrl);
  const baseUrl = configuredBase === undefined ? listenUrl(tlsConfigured, listen) : (env.PADDOCK_BASE_URL ?? '');
  const base = new URL(baseUrl);
  const loopbackHttp = base.protocol === 'http:' && isLoopbackHost(base.hostname);
  const secure = read(env, options.secure) ?? !loopbackHttp;
  if (!secure && !loopbackHttp) {
    throw new ConfigError('PADDOCK_SECURE', 'may be false only when PADDOCK_BASE_URL is http:// on a loopback host');
  }
  const issuer = read(env, options.issuer);
  const clientId = read(env, options.clientId) ?? '';
  if (issuer !== undefined && clientId === '') {
    throw new ConfigError('PADDOCK_OIDC_CLIENT_ID', 'must be set when PADDOCK_OIDC_ISSUER is set');
  }
  const tls = pemPair(read(env, options.tlsCert), read(env, options.tlsKey), {
    cert: 'PADDOCK_TLS_CERT',
    key: 'PADDOCK_TLS_KEY',
  });
  const controlTls = pemPair(read(env, options.controlCert), read(env, options.controlKey), {
    cert: 'PADDOCK_CONTROL_TLS_CERT',
    key: 'PADDOCK_CONTROL_TLS_KEY',
  });
  if (!tls && !isLoopbackHost(listen.host)) {
    throw new ConfigError(
      'PADDOCK_LISTEN',
      'plain HTTP is served only on a loopback address; set PADDOCK_TLS_CERT and PADDOCK_TLS_KEY',
    );
  }
  const controlHostSetting = read(env, options.controlHost);
  const controlUrlSetting = read(env, options.controlUrl);
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
  return {
    listen,
    dataDir: read(env, options.dataDir) ?? './data',
    databaseUrl: read(env, options.databaseUrl),
    baseUrl,
    secure,
    adminUser: read(env, options.adminUser) ?? 'admin',
    adminPassword: read(env, options.adminPassword),
    oidc: {
      issuer,
      clientId,
      clientSecret: read(env, options.clientSecret) ?? '',
      adminGroup: read(env, options.adminGroup),
      groupsClaim: read(env, options.groupsClaim) ?? 'groups',
      enabled: read(env, options.oidcEnabled) ?? true,
    },
    serverName: read(env, options.serverName) ?? 'paddock',
    controlUrl,
    tls,
    controlHost,
    controlTls,
    sessionKeys: read(env, options.sessionKeys),
    sessionTtlSeconds: read(env, options.sessionTtl) ?? 43_200,
    enrollTokenTtlSeconds: read(env, options.enrollTokenTtl) ?? 86_400,
    logLevel: read(env, options.logLevel) ?? 'info',
    version,
    followsListenPort: {
      baseUrl: configuredBase === undefined && listen.port === 0,
      controlUrl: configuredBase === undefined && listen.port === 0 && controlUrlSetting === undefined,
    },
  };
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
