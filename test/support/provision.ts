/**
 * What the suites need from the machine, provisioned before `npm test` runs them: each row names a
 * command the suites run and the Debian package that brings it. When everything is present this
 * costs a look along PATH and one psql call. When something is missing and this is root on a
 * Debian-like machine, it installs the missing packages in one apt-get and sets up PostgreSQL as
 * the suites expect (trust on loopback, database `test`); otherwise it says exactly what is
 * missing and why it cannot install it, and the suites that need it are skipped (or, with
 * CI=true, fail). Adding a need is one row in NEEDS.
 *
 * Run by `npm test` (package.json); alone: `npx node test/support/provision.ts`.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

export interface Need {
  /** A command on PATH the suites run (or, with `file`, the name of what the package brings). */
  command: string;
  /** For what is not a command (a plugin a command loads): the file the package installs. */
  file?: string;
  /** The Debian package that installs it. */
  package: string;
  /** Which suites need it, for the message when it is missing. */
  for: string;
}

/** Debian's multiarch folder of this machine's libraries (where plugins are installed). */
const MULTIARCH = `${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu`;

export const NEEDS: readonly Need[] = [
  {
    command: 'pg_ctlcluster',
    package: 'postgresql',
    for: 'the PostgreSQL store and several instances (test/store, test/multi)',
  },
  { command: 'psql', package: 'postgresql', for: 'the PostgreSQL set-up here' },
  { command: 'chromium', package: 'chromium', for: 'the browser suite (test/e2e)' },
  { command: 'podman', package: 'podman', for: 'the container image test (test/deploy/container)' },
  { command: 'buildah', package: 'buildah', for: 'the container image test (test/deploy/container)' },
  { command: 'debootstrap', package: 'debootstrap', for: 'the container image test (test/deploy/container)' },
  { command: 'systemd-analyze', package: 'systemd', for: 'the systemd unit test (test/deploy/systemd)' },
  {
    command: 'promtool',
    package: 'prometheus',
    for: 'the metrics exposition check (test/console/metrics), the alerting rules and dashboard (test/deploy/monitoring)',
  },
  { command: 'rsyslogd', package: 'rsyslog', for: 'the audit trail to a syslog collector (test/audit/syslog)' },
  {
    command: 'lmnsd_gtls.so',
    file: `/usr/lib/${MULTIARCH}/rsyslog/lmnsd_gtls.so`,
    package: 'rsyslog-gnutls',
    for: "rsyslog's TLS listener, for the audit trail over TLS (test/audit/syslog)",
  },
  {
    command: 'openssl',
    package: 'openssl',
    for: "the syslog collector's test CA and certificates (test/audit/syslog)",
  },
  { command: 'haproxy', package: 'haproxy', for: 'the load balancer recipe (test/deploy/haproxy)' },
  { command: 'busybox', package: 'busybox', for: 'the sh device client under busybox (test/device_client/sh_client)' },
  { command: 'dash', package: 'dash', for: 'the sh device client under dash (test/device_client/sh_client)' },
  {
    command: 'curl',
    package: 'curl',
    for: 'the sh device client, which speaks through curl (test/device_client/sh_client)',
  },
];

/** Where a command is looked for: PATH, and the sbin folders a non-login root shell may lack. */
export function searchPath(env: NodeJS.ProcessEnv = process.env): string[] {
  const dirs = (env.PATH ?? '').split(delimiter).filter(Boolean);
  for (const extra of ['/usr/local/sbin', '/usr/sbin', '/sbin']) if (!dirs.includes(extra)) dirs.push(extra);
  return dirs;
}

/** True when `command` is an executable file in one of `dirs`. */
export function found(command: string, dirs: readonly string[]): boolean {
  return dirs.some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The rows whose command (or file) is not found. */
export function missing(needs: readonly Need[], dirs: readonly string[]): Need[] {
  return needs.filter((need) => (need.file === undefined ? !found(need.command, dirs) : !existsSync(need.file)));
}

/** The packages to install for the missing rows, each once, in table order. */
export function packages(rows: readonly Need[]): string[] {
  return [...new Set(rows.map((r) => r.package))];
}

/** Why this machine cannot install packages itself, or undefined when it can (root with apt-get). */
export function cannotInstall(uid: number | undefined, dirs: readonly string[]): string | undefined {
  if (!found('apt-get', dirs)) return 'there is no apt-get here (not a Debian-like machine)';
  if (uid !== 0) return 'installing packages needs root';
  return undefined;
}

/** The message for what is missing and cannot be installed: each package, its command and its suites. */
export function missingReport(rows: readonly Need[], why: string): string {
  const lines = packages(rows).map((pkg) => {
    const of = rows.filter((r) => r.package === pkg);
    return `  ${pkg} (${of.map((r) => r.command).join(', ')}): ${[...new Set(of.map((r) => r.for))].join('; ')}`;
  });
  return (
    `provision: missing, and not installed because ${why}:\n${lines.join('\n')}\n` +
    `provision: install them with: apt-get install -y ${packages(rows).join(' ')}\n` +
    'provision: the suites that need them are skipped, or fail with CI=true\n'
  );
}

const say = (line: string): void => {
  process.stderr.write(`provision: ${line}\n`);
};

function sh(command: string, args: string[], env: NodeJS.ProcessEnv = {}): { ok: boolean; out: string } {
  const r = spawnSync(command, args, {
    env: { ...process.env, PATH: searchPath().join(delimiter), ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return { ok: r.status === 0, out: `${r.stdout ?? ''}${r.stderr ?? ''}`.trim() };
}

function aptInstall(pkgs: string[]): boolean {
  say(`installing ${pkgs.join(' ')} (apt-get)`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  const update = sh('apt-get', ['update'], env);
  const install = update.ok && sh('apt-get', ['install', '-y', ...pkgs], env);
  if (install && install.ok) return true;
  say(`apt-get failed: ${(install ? install.out : update.out).split('\n').slice(-3).join(' | ')}`);
  return false;
}

const PG = ['-h', '127.0.0.1', '-p', '5432', '-U', 'postgres'];

/** PostgreSQL as the suites expect it: answering on 127.0.0.1:5432 with trust, and a database `test`. */
function postgresReady(): boolean {
  return sh('psql', [...PG, '-d', 'test', '-tAc', 'SELECT 1']).out === '1';
}

function setUpPostgres(dirs: readonly string[]): void {
  if (!found('pg_ctlcluster', dirs)) return;
  const versions = (() => {
    try {
      return readdirSync('/etc/postgresql').sort();
    } catch {
      return [];
    }
  })();
  const version = versions.at(-1);
  if (version === undefined) return say('PostgreSQL is installed but has no cluster in /etc/postgresql');
  // A new cluster asks for passwords on TCP; the suites connect as postgres without one, on loopback only.
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`;
  const text = readFileSync(hba, 'utf8');
  const trusted = text.replace(
    /^(host\s+all\s+all\s+(?:127\.0\.0\.1\/32|::1\/128)\s+)\S+/gm,
    (_, start: string) => `${start}trust`,
  );
  const restart = trusted !== text;
  if (restart) {
    writeFileSync(hba, trusted);
    say(`${hba}: loopback trusted`);
  }
  const cluster = ['--skip-systemctl-redirect', version, 'main'];
  if (restart) sh('pg_ctlcluster', [...cluster, 'stop']);
  if (!sh('pg_isready', ['-q', ...PG]).ok) {
    const start = sh('pg_ctlcluster', [...cluster, 'start']);
    if (!start.ok) return say(`cannot start PostgreSQL ${version}: ${start.out}`);
  }
  for (let i = 0; i < 30 && !sh('pg_isready', ['-q', ...PG]).ok; i++) spawnSync('sleep', ['1']);
  const exists = sh('psql', [...PG, '-d', 'postgres', '-tAc', "SELECT 1 FROM pg_database WHERE datname = 'test'"]);
  if (exists.out !== '1') {
    const created = sh('createdb', [...PG, 'test']);
    say(created.ok ? 'database test created' : `cannot create the database test: ${created.out}`);
  }
}

/**
 * What suites killed before their `after` ran leave in PostgreSQL: their schemas and databases
 * (`paddock_test_<random>`, test/support/postgres.ts), dropped here, before any suite starts. Each
 * suite makes and drops hundreds of schemas, so the catalogs fill with dead rows faster than
 * autovacuum (which never visits them on an idle server) clears them; past a few million, every
 * migration in every suite slows by seconds. A plain VACUUM of the catalogs makes that room
 * reusable again, online; it takes a moment only when there is much to clear.
 */
function tidyPostgres(): void {
  const schemas = sh('psql', [
    ...PG,
    '-d',
    'test',
    '-tAc',
    "SELECT string_agg(format('DROP SCHEMA %I CASCADE;', nspname), ' ') FROM pg_namespace WHERE nspname LIKE 'paddock\\_test\\_%'",
  ]);
  // Read from standard input, psql commits each statement on its own: one transaction dropping
  // hundreds of schemas would run out of locks.
  if (schemas.ok && schemas.out !== '')
    spawnSync('psql', [...PG, '-d', 'test', '-q'], {
      input: schemas.out.replaceAll('; ', ';\n'),
      env: { ...process.env, PATH: searchPath().join(delimiter) },
      stdio: ['pipe', 'ignore', 'ignore'],
    });
  const databases = sh('psql', [
    ...PG,
    '-d',
    'postgres',
    '-tAc',
    "SELECT datname FROM pg_database WHERE datname LIKE 'paddock\\_test\\_%'",
  ]);
  for (const name of databases.ok ? databases.out.split('\n').filter(Boolean) : [])
    sh('dropdb', [...PG, '--if-exists', '--force', name]);
  const catalogs = ['pg_attribute', 'pg_class', 'pg_depend', 'pg_type', 'pg_constraint', 'pg_index', 'pg_attrdef'];
  sh('psql', [...PG, '-d', 'test', '-qc', `VACUUM ${catalogs.map((c) => `pg_catalog.${c}`).join(', ')}`]);
}

export function provision(): void {
  const dirs = searchPath();
  const absent = missing(NEEDS, dirs);
  const pgReady = absent.length === 0 && postgresReady();
  if (pgReady) tidyPostgres();
  if (absent.length === 0 && pgReady) return;
  const why = absent.length > 0 ? cannotInstall(process.getuid?.(), dirs) : undefined;
  if (why !== undefined) {
    process.stderr.write(missingReport(absent, why));
    return;
  }
  if (absent.length > 0 && !aptInstall(packages(absent))) {
    process.stderr.write(missingReport(missing(NEEDS, dirs), 'apt-get failed (see above)'));
    return;
  }
  if (postgresReady()) return;
  if (process.getuid?.() !== 0) {
    say('PostgreSQL does not answer at 127.0.0.1:5432 (database test, user postgres, trust); setting it up needs root');
    return;
  }
  setUpPostgres(dirs);
  if (!postgresReady()) say('PostgreSQL is still not answering at 127.0.0.1:5432 with a database test');
  else tidyPostgres();
}

if (import.meta.main) provision();
