/**
 * A real syslog collector for tests: Debian's rsyslogd, started in the foreground with a
 * configuration of its own (its own work directory and pid file, imtcp on a loopback port, over
 * TLS through the gtls driver when asked), writing each message it parses as one JSON line to a
 * file the test reads: the header fields, the structured data as rsyslog's mmpstrucdata parsed
 * it, and MSG. Stopped (and restartable on the same port) by the test. Without rsyslogd the
 * suites are skipped, or fail with CI=true.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import { NEEDS, missing, searchPath } from './provision.ts';
import { freePort } from './tls_fixture.ts';

/** What is missing for the syslog suites, or undefined; on CI (CI=true) missing is an error. */
export function rsyslogMissing(): string | undefined {
  const absent = missing(
    NEEDS.filter((n) => n.for.includes('test/audit/syslog')),
    searchPath(),
  );
  if (absent.length === 0) return undefined;
  const what = `missing ${absent.map((n) => `${n.command} (Debian ${n.package})`).join(', ')}`;
  if (process.env.CI === 'true') throw new Error(`the syslog suites need rsyslog on CI: ${what}`);
  return what;
}

/** One message as the collector parsed it. */
export interface Received {
  pri: number;
  timestamp: string;
  hostname: string;
  app: string;
  procid: string;
  msgid: string;
  /** The STRUCTURED-DATA as received, escaped. */
  sd: string;
  /** mmpstrucdata's parse of it: SD-ID → name → value (unescaped). */
  fields: Record<string, Record<string, string>>;
  msg: string;
}

/** A test PKI made with openssl: a CA, a server certificate it signed for 127.0.0.1, and an unrelated CA. */
export interface Pki {
  caFile: string;
  certFile: string;
  keyFile: string;
  otherCaFile: string;
}

function openssl(args: string[], cwd: string): void {
  const r = spawnSync('openssl', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`openssl ${args[0]}: ${r.stderr}`);
}

export async function makePki(dir: string): Promise<Pki> {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Paddock test CA'],
    dir,
  );
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'other.key', '-out', 'other.pem', '-days', '2', '-subj', '/CN=Other CA'],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost'], dir);
  await writeFile(
    join(dir, 'server.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial'].concat([
      '-out',
      'server.pem',
      '-days',
      '2',
      '-extfile',
      'server.ext',
    ]),
    dir,
  );
  return {
    caFile: join(dir, 'ca.pem'),
    certFile: join(dir, 'server.pem'),
    keyFile: join(dir, 'server.key'),
    otherCaFile: join(dir, 'other.pem'),
  };
}

export interface Collector {
  port: number;
  dir: string;
  start(): Promise<void>;
  /** SIGTERM, then waits for the process to end. */
  stop(): Promise<void>;
  /** Every message written so far, in the order received. */
  received(): Promise<Received[]>;
  /** Waits (up to `ms`) until `done` holds of what was received; returns it. */
  waitFor(done: (r: Received[]) => boolean, ms?: number): Promise<Received[]>;
  /** Stops the collector and removes its directory. */
  dispose(): Promise<void>;
}

function config(dir: string, port: number, pki: Pki | undefined): string {
  const tls = pki
    ? `defaultNetstreamDriverCAFile="${pki.caFile}" defaultNetstreamDriverCertFile="${pki.certFile}"
  defaultNetstreamDriverKeyFile="${pki.keyFile}"`
    : '';
  const driver = pki ? 'streamDriver.name="gtls" streamDriver.mode="1" streamDriver.authMode="anon"' : '';
  return `global(workDirectory="${dir}/work" maxMessageSize="64k" ${tls})
module(load="imtcp" ${driver})
module(load="mmpstrucdata")
template(name="paddockJson" type="list" option.jsonf="on") {
  property(outname="pri" name="pri" format="jsonf")
  property(outname="timestamp" name="timereported" dateFormat="rfc3339" format="jsonf")
  property(outname="hostname" name="hostname" format="jsonf")
  property(outname="app" name="app-name" format="jsonf")
  property(outname="procid" name="procid" format="jsonf")
  property(outname="msgid" name="msgid" format="jsonf")
  property(outname="sd" name="structured-data" format="jsonf")
  property(outname="fields" name="$!rfc5424-sd" format="jsonf")
  property(outname="msg" name="msg" format="jsonf")
}
ruleset(name="paddock") {
  action(type="mmpstrucdata")
  action(type="omfile" file="${dir}/received.jsonl" template="paddockJson")
}
input(type="imtcp" address="127.0.0.1" port="${port}" ruleset="paddock")
`;
}

/** A collector on a free loopback port, not started yet; `pki` makes it a TLS listener. */
export async function collector(pki?: Pki): Promise<Collector> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-rsyslog-'));
  await mkdir(join(dir, 'work'));
  const port = await freePort();
  const conf = join(dir, 'rsyslog.conf');
  await writeFile(conf, config(dir, port, pki));
  const file = join(dir, 'received.jsonl');
  let child: ChildProcess | undefined;
  let exited: Promise<void> | undefined;
  let stderr = '';

  async function received(): Promise<Received[]> {
    if (!existsSync(file)) return [];
    const text = await readFile(file, 'utf8');
    return text
      .split('\n')
      .filter((line) => line.endsWith('}'))
      .map((line) => {
        const raw = JSON.parse(line) as Omit<Received, 'fields' | 'pri'> & { fields: string; pri: string };
        return { ...raw, pri: Number(raw.pri), fields: raw.fields === '' ? {} : JSON.parse(raw.fields) };
      });
  }

  const self: Collector = {
    port,
    dir,
    async start() {
      const bin = searchPath()
        .map((d) => join(d, 'rsyslogd'))
        .find((p) => existsSync(p));
      if (bin === undefined) throw new Error('rsyslogd not found');
      const started = spawn(bin, ['-n', '-f', conf, '-i', join(dir, 'rsyslogd.pid')], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      started.stdout?.on('data', (d: Buffer) => (stderr += d));
      started.stderr?.on('data', (d: Buffer) => (stderr += d));
      exited = new Promise((resolve) => started.on('exit', () => resolve()));
      // Listening once a connection is accepted.
      for (let i = 0; i < 200; i++) {
        if (started.exitCode !== null) throw new Error(`rsyslogd exited: ${stderr}`);
        const ok = await new Promise<boolean>((resolve) => {
          const s = connect(port, '127.0.0.1');
          s.once('connect', () => (s.destroy(), resolve(true)));
          s.once('error', () => resolve(false));
        });
        if (ok) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`rsyslogd did not listen on ${port}: ${stderr}`);
    },
    async stop() {
      if (!child || child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
    received,
    async waitFor(done, ms = 20_000) {
      const until = Date.now() + ms;
      for (;;) {
        const got = await received();
        if (done(got)) return got;
        if (Date.now() > until)
          throw new Error(`collector: timed out with ${got.length} messages received; rsyslogd said: ${stderr}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async dispose() {
      await self.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
  return self;
}
