/**
 * `paddock check`: what `paddock serve` needs, checked without serving and without changing
 * anything (no migration, no generated key): the configuration, the store and its schema version,
 * the seal key, the identity provider's discovery, and the certificates. One line per check, for
 * people and init containers alike; the exit code says which kind of failure it was.
 */
import { X509Certificate } from 'node:crypto';
import { DatabaseSync } from 'node:sqlite';
import { type Config, loadConfig } from '../config/config.ts';
import { ConfigError } from '../config/parse.ts';
import { discoverProvider } from '../oidc/discovery.ts';
import { innermostReason } from '../store/errors.ts';
import { databaseFile, integrityFault } from '../store/sqlite/connection.ts';
import { postgresSchema, schemaRefusal, type SchemaState, sqliteSchema, storedSetting } from '../store/schema.ts';
import { judgeSealKey } from '../store/seal_store.ts';
import { isSealed, openSetting, SEAL_CHECK_SETTING, type SettingsKey } from '../store/sealed_settings.ts';
import { CONTROL_TLS_SETTING, daysLeft, namesHost, reissueReason } from '../tls/control_identity.ts';
import { connectSyslog } from '../audit/syslog_connection.ts';
import { type Advice, errorCode, transportFailure } from './transport.ts';

export const checkHelp = `Usage: paddock check

Checks the configuration, reaches the store (and reads its schema version), the identity
provider's discovery document, the certificates and the audit trail's syslog collector, without
serving or changing anything.
Prints one line per check: "ok", "skip" (not configured) or "FAIL", and what it found.

Exit codes: 0 every check passed; 1 a check failed (store, identity provider, certificate or
syslog collector);
2 the configuration is invalid (nothing else is checked), or the seal key is missing, malformed
or not the one the store's secrets are sealed with (as paddock serve would refuse to start).
`;

type Line = { ok: boolean | 'skip'; what: string; found: string };

/** What to do when the identity provider cannot be reached (serve reaches it the same way). */
const PROVIDER: Advice = {
  trust: 'trust its CA with NODE_EXTRA_CA_CERTS=/path/to/ca.pem, for check and serve alike',
  plain: () => 'is PADDOCK_OIDC_ISSUER the https:// address the provider serves?',
  service: 'the identity provider',
};

/** Discovery is allowed what the server allows it at start. */
const DISCOVERY_TIMEOUT_MS = 5_000;

export async function checkCommand(): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    print({ ok: false, what: 'configuration', found: err.message });
    return 2;
  }
  print({ ok: true, what: 'configuration', found: `valid; console at ${config.baseUrl}` });
  const seal = await sealKey(config);
  const lines = [
    await store(config),
    seal.line,
    await identityProvider(config),
    ...(await certificates(config, Date.now(), seal.key)),
    await syslogCollector(config),
  ];
  lines.forEach(print);
  if (seal.line.ok === false) return 2;
  return lines.some((l) => l.ok === false) ? 1 : 0;
}

/**
 * The seal key (docs/contract.md section 23): its file, and whether it opens the store's check
 * value. A failure here is one serve refuses to start on (exit 2); a missing file for a store not
 * sealed yet is made by the next start.
 */
async function sealKey(config: Config): Promise<{ line: Line; key?: SettingsKey }> {
  const what = 'seal key';
  const file = config.sealKeyFile;
  let check: string | undefined;
  try {
    check = await storedSetting(
      { databaseUrl: config.databaseUrl, sqlitePath: databaseFile(config.dataDir) },
      SEAL_CHECK_SETTING,
    );
  } catch (err) {
    return { line: { ok: 'skip', what, found: `cannot read the store: ${innermostReason(err)}` } };
  }
  const judged = judgeSealKey(file, check);
  if (judged.state === 'refused') return { line: { ok: false, what, found: judged.reason } };
  if (judged.state === 'absent')
    return {
      line: {
        ok: true,
        what,
        found: `${file}: none yet: made at the next start (keep it: no backup of the store holds it)`,
      },
    };
  const found = judged.opensCheck
    ? `${file} opens the store's secrets`
    : `${file}; the next start seals the store's secrets under it`;
  return { line: { ok: true, what, found }, key: judged.key };
}

function print(line: Line): void {
  const mark = line.ok === 'skip' ? 'skip' : line.ok ? 'ok  ' : 'FAIL';
  process.stdout.write(`${mark} ${line.what}: ${line.found.replace(/\s+/g, ' ')}\n`);
}

async function store(config: Config): Promise<Line> {
  const what = 'store';
  let kind: string;
  let schema: SchemaState | undefined;
  try {
    if (config.databaseUrl !== undefined) {
      kind = `PostgreSQL ${new URL(config.databaseUrl).host}`;
      schema = await postgresSchema(config.databaseUrl);
    } else {
      const path = databaseFile(config.dataDir);
      kind = `SQLite ${path}`;
      schema = sqliteSchema(path);
      if (schema) quickCheck(path);
    }
  } catch (err) {
    return { ok: false, what, found: `cannot use the store: ${innermostReason(err)}` };
  }
  if (!schema) return { ok: true, what, found: `${kind}, none yet: created at the first start` };
  const refusal = schemaRefusal(schema);
  if (refusal) return { ok: false, what, found: `${kind}: ${refusal}` };
  const pending = schema.known - schema.version;
  const upgrade = pending > 0 ? `; the next start migrates it to ${schema.known}` : '';
  return { ok: true, what, found: `${kind}, schema version ${schema.version}${upgrade}` };
}

/** The audit trail's collector (docs/contract.md section 13): connected to (and, for tls://, verified), then left. */
async function syslogCollector(config: Config): Promise<Line> {
  const what = 'audit syslog collector';
  const target = config.auditSyslog;
  if (target === undefined) return { ok: 'skip', what, found: 'not configured (PADDOCK_AUDIT_SYSLOG)' };
  try {
    const connection = await connectSyslog(target, { ca: config.auditSyslogCa, timeoutMs: DISCOVERY_TIMEOUT_MS });
    connection.destroy();
    const verified =
      target.scheme === 'tls'
        ? `, its certificate verified against ${config.auditSyslogCa === undefined ? "the system's CAs" : 'PADDOCK_AUDIT_SYSLOG_CA'}`
        : '';
    return { ok: true, what, found: `${target.text} reachable${verified}` };
  } catch (err) {
    return { ok: false, what, found: `not reachable: ${(err as Error).message}` };
  }
}

function quickCheck(path: string): void {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const fault = integrityFault(db);
    if (fault) throw new Error(`the database fails its integrity check (${fault})`);
  } finally {
    db.close();
  }
}

async function identityProvider(config: Config): Promise<Line> {
  const what = 'identity provider';
  const { issuer } = config.oidc;
  if (issuer === undefined) return { ok: 'skip', what, found: 'not configured: the break-glass password only' };
  try {
    const found = await discoverProvider(issuer, fetch, DISCOVERY_TIMEOUT_MS);
    return { ok: true, what, found: `${issuer} discovery answered; authorization at ${found.authorizationEndpoint}` };
  } catch (err) {
    const transport = errorCode(err) !== undefined || (err as Error).name === 'TimeoutError';
    const reason = transport ? transportFailure(err, new URL(issuer), PROVIDER) : innermostReason(err);
    return { ok: false, what, found: `${issuer}: ${reason}` };
  }
}

/**
 * Each certificate served: its names, the days it has left, and whether it names the host it is
 * served for. The control certificate is served without TLS too (to devices, on the plain port):
 * the generated one is read from the store, where a start reissues it when due (issue 23).
 */
async function certificates(config: Config, now: number, key: SettingsKey | undefined): Promise<Line[]> {
  const adminHost = new URL(config.baseUrl).hostname;
  const admin: Line =
    config.tls === undefined
      ? {
          ok: 'skip',
          what: 'certificate PADDOCK_TLS_CERT',
          found: 'no TLS configured: plain HTTP on a loopback address',
        }
      : certificate('certificate PADDOCK_TLS_CERT', config.tls.certPem, adminHost, now);
  if (config.controlTls)
    return [
      admin,
      certificate('certificate PADDOCK_CONTROL_TLS_CERT', config.controlTls.certPem, config.controlHost, now),
    ];
  return [admin, await generatedCertificate(config, now, key)];
}

async function generatedCertificate(config: Config, now: number, key: SettingsKey | undefined): Promise<Line> {
  const what = 'control certificate';
  let stored: string | undefined;
  try {
    stored = await storedSetting(
      { databaseUrl: config.databaseUrl, sqlitePath: databaseFile(config.dataDir) },
      CONTROL_TLS_SETTING,
    );
  } catch (err) {
    return { ok: 'skip', what, found: `cannot read it from the store: ${innermostReason(err)}` };
  }
  if (stored === undefined)
    return { ok: 'skip', what, found: 'none yet: generated at the first start, kept in the store' };
  if (isSealed(stored) && key === undefined)
    return { ok: 'skip', what, found: 'sealed in the store, and the seal key cannot open it' };
  let opened: string;
  try {
    opened = key === undefined ? stored : openSetting(key, CONTROL_TLS_SETTING, stored);
  } catch (err) {
    return { ok: false, what, found: (err as Error).message };
  }
  const { certPem } = JSON.parse(opened) as { certPem: string };
  const cert = new X509Certificate(certPem);
  const found = `generated, ${cert.subjectAltName ?? cert.subject}, valid until ${cert.validTo} (${daysLeft(cert, now)} days left)`;
  const due = reissueReason(certPem, config.controlHost, now);
  // Not a failure: the next start reissues it, with the same key, so links and devices keep working.
  return {
    ok: true,
    what,
    found: due === undefined ? found : `${found}; ${due}: the next start reissues it with the same key`,
  };
}

function certificate(what: string, pem: string, host: string, now: number): Line {
  const cert = new X509Certificate(pem);
  const from = Date.parse(cert.validFrom);
  const to = Date.parse(cert.validTo);
  const names = cert.subjectAltName ?? cert.subject;
  if (now < from) return { ok: false, what, found: `${names}: not valid before ${cert.validFrom}` };
  if (now >= to) return { ok: false, what, found: `${names}: expired on ${cert.validTo}` };
  if (!namesHost(cert, host)) return { ok: false, what, found: `${names}: does not name ${host}` };
  return { ok: true, what, found: `${names}, valid until ${cert.validTo} (${daysLeft(cert, now)} days left)` };
}
