/**
 * Configuration from the environment (CONTRACT section 3), as one declarative table of options.
 * A bad value throws ConfigError naming the variable, so `paddock serve` never starts half-configured.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
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
  /** The control certificate and key from PEM files; unset: generated once and kept in the store. */
  controlTls: { certPem: string; keyPem: string } | undefined;
  sessionKeys: Buffer[] | undefined;
  sessionTtlSeconds: number;
  enrollTokenTtlSeconds: number;
  logLevel: Level;
  version: string;
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

function readPem(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`, { cause: err });
  }
}

function readCertificate(path: string): string {
  const pem = readPem(path);
  try {
    new X509Certificate(pem);
  } catch {
    throw new Error(`${path} is not a PEM certificate`);
  }
  return pem;
}

function readPrivateKey(path: string): string {
  const pem = readPem(path);
  try {
    createPrivateKey(pem);
  } catch {
    throw new Error(`${path} is not a PEM private key`);
  }
  return pem;
}

/** Every variable this module reads, for `--help`. */
export const configVariables = Object.values(options).map((o) => o.variable);

/** Reads and validates the whole configuration; throws ConfigError on the first bad value. */
export function loadConfig(env: Env): Config {
  const listen = read(env, options.listen) ?? { host: '127.0.0.1', port: 8080 };
  const listenHost = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  const baseUrl = (read(env, options.baseUrl)?.href ?? `http://${listenHost}:${listen.port}/`).replace(/\/+$/, '');
  const base = new URL(baseUrl);
  const issuer = read(env, options.issuer);
  const clientId = read(env, options.clientId) ?? '';
  if (issuer !== undefined && clientId === '') {
    throw new ConfigError('PADDOCK_OIDC_CLIENT_ID', 'must be set when PADDOCK_OIDC_ISSUER is set');
  }
  const controlCert = read(env, options.controlCert);
  const controlKey = read(env, options.controlKey);
  if ((controlCert === undefined) !== (controlKey === undefined)) {
    const missing = controlCert === undefined ? options.controlCert : options.controlKey;
    throw new ConfigError(missing.variable, 'must be set together with its certificate or key');
  }
  if (controlCert && controlKey && !new X509Certificate(controlCert).checkPrivateKey(createPrivateKey(controlKey))) {
    throw new ConfigError('PADDOCK_CONTROL_TLS_KEY', 'is not the key of the certificate in PADDOCK_CONTROL_TLS_CERT');
  }
  return {
    listen,
    dataDir: read(env, options.dataDir) ?? './data',
    databaseUrl: read(env, options.databaseUrl),
    baseUrl,
    secure: read(env, options.secure) ?? !(base.protocol === 'http:' && isLoopbackHost(base.hostname)),
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
    controlUrl: read(env, options.controlUrl) ?? baseUrl,
    controlTls: controlCert && controlKey ? { certPem: controlCert, keyPem: controlKey } : undefined,
    sessionKeys: read(env, options.sessionKeys),
    sessionTtlSeconds: read(env, options.sessionTtl) ?? 43_200,
    enrollTokenTtlSeconds: read(env, options.enrollTokenTtl) ?? 86_400,
    logLevel: read(env, options.logLevel) ?? 'info',
    version,
  };
}
