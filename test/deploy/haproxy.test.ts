// deploy/haproxy/haproxy.cfg as the README runs it (docs/contract.md section 18), with Debian's
// haproxy: two `paddock serve` instances on one PostgreSQL database behind one port, TLS passed
// through by SNI, PROXY protocol v2 to the instances, /healthz checks. Devices (each from its own
// loopback address) enroll, upload without pause and hold a collection request; an operator signs
// in and asks them for a run; meanwhile one instance is killed with SIGKILL. Every upload completes
// through the other after its retries, none acknowledged is lost, and the audit trail names each
// client's own address, never HAProxy's. The numbers are printed for the record.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connect as netConnect } from 'node:net';
import { connect } from 'node:tls';
import { RETRYABLE } from '../../src/device_client/client.ts';
import { retryDelay } from '../../src/device_client/backoff.ts';
import { spkiPin } from '../../src/device_client/pinned_request.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';
import { paddock, type PaddockProcess } from '../support/process.ts';
import { found, searchPath } from '../support/provision.ts';
import { freePort, type TlsFixture, tlsFixture } from '../support/tls_fixture.ts';

const CONFIG = new URL('../../deploy/haproxy/haproxy.cfg', import.meta.url).pathname;
const PASSWORD = 'behind haproxy password';
const CONSOLE = 'admin.test';
const CONTROL = 'control.test';
/** Where the operator's browser connects from; each device has its own address after it. */
const OPERATOR = '127.0.0.50';
const DEVICES = 6;
const deviceAddress = (i: number) => `127.0.0.${11 + i}`;

const haproxyFound = found('haproxy', searchPath());
const available = await postgresAvailable();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** The operator's browser: HTTPS to the console's name through HAProxy, trusting the console's certificate. */
function browse(
  fx: TlsFixture,
  port: number,
  method: string,
  path: string,
  opts: { cookie?: string; form?: Record<string, string | string[]> } = {},
): Promise<Answer> {
  const fields = Object.entries(opts.form ?? {}).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((one): [string, string] => [name, one]),
  );
  const body = opts.form && new URLSearchParams(fields).toString();
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        servername: CONSOLE,
        localAddress: OPERATOR,
        ca: fx.admin.certPem,
        method,
        path,
        agent: false,
        headers: {
          host: `${CONSOLE}:${port}`,
          ...(opts.cookie ? { cookie: opts.cookie } : {}),
          ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A device's request: HTTPS to the control name through HAProxy from the device's own address,
 * trusted only through the pin, as src/device_client/pinned_request.ts does (which cannot choose
 * its source address).
 */
async function deviceRequest(
  port: number,
  from: string,
  pins: readonly string[],
  method: string,
  path: string,
  opts: { credential?: string; body?: string; headers?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Answer> {
  const raw = netConnect({ host: '127.0.0.1', port, localAddress: from });
  const socket = connect({
    socket: raw,
    servername: CONTROL,
    rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'],
  });
  raw.on('error', (err) => socket.destroy(err));
  const timer = setTimeout(() => socket.destroy(new Error('no answer in time')), opts.timeoutMs ?? 10_000);
  try {
    await once(socket, 'secureConnect');
    if (!pins.includes(spkiPin(socket))) throw new Error('pin mismatch');
    return await new Promise<Answer>((resolve, reject) => {
      const req = httpRequest(
        {
          createConnection: () => socket,
          method,
          path,
          headers: {
            host: `${CONTROL}:${port}`,
            ...(opts.credential ? { authorization: `Bearer ${opts.credential}` } : {}),
            ...(opts.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(opts.body)) }),
            ...opts.headers,
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8').on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(opts.body);
    });
  } finally {
    clearTimeout(timer);
    socket.destroy();
    raw.destroy();
  }
}

interface Device {
  address: string;
  id: string;
  credential: string;
  pins: string[];
}

if (!haproxyFound && process.env.CI !== 'true') {
  test('two instances behind HAProxy (skipped: haproxy is not installed)', { skip: true }, () => undefined);
} else if (!available) {
  test(`two instances behind HAProxy (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('deploy/haproxy/haproxy.cfg: two instances on PostgreSQL behind one port', () => {
    let fx: TlsFixture;
    let database: string;
    let dir: string;
    let port: number;
    const instances: PaddockProcess[] = [];
    let haproxy: ChildProcess | undefined;
    let haproxyLog = '';

    async function startInstance(name: string): Promise<{ p: PaddockProcess; address: string }> {
      const p = paddock(['serve'], {
        PADDOCK_LISTEN: '127.0.0.1:0',
        PADDOCK_BASE_URL: `https://${CONSOLE}:${port}`,
        PADDOCK_CONTROL_HOST: CONTROL,
        PADDOCK_TLS_CERT: fx.admin.certFile,
        PADDOCK_TLS_KEY: fx.admin.keyFile,
        PADDOCK_DATA_DIR: join(dir, name),
        ...sharedDatabaseEnv(databaseUrl(database), dir),
        PADDOCK_ADMIN_PASSWORD: PASSWORD,
        // HAProxy connects to the instances from loopback's first address; the clients use others.
        PADDOCK_PROXY_PROTOCOL_FROM: '127.0.0.1',
      });
      instances.push(p);
      const address = (await p.waitFor(/serving on https:\/\/(127\.0\.0\.1:\d+)/))[1] ?? '';
      return { p, address };
    }

    before(async () => {
      fx = await tlsFixture();
      database = await freshDatabase();
      dir = await mkdtemp(join(tmpdir(), 'paddock-haproxy-'));
      port = await freePort();
      const [a, b] = await Promise.all([startInstance('a'), startInstance('b')]);
      const env = {
        PATH: searchPath().join(':'),
        PADDOCK_HAPROXY_BIND: `127.0.0.1:${port}`,
        PADDOCK_CONSOLE_NAME: CONSOLE,
        PADDOCK_CONTROL_NAME: CONTROL,
        PADDOCK_INSTANCE_A: a.address,
        PADDOCK_INSTANCE_B: b.address,
      };
      const checked = spawnSync('haproxy', ['-c', '-f', CONFIG], { env, encoding: 'utf8' });
      assert.equal(checked.status, 0, `${checked.stdout}${checked.stderr}`);
      haproxy = spawn('haproxy', ['-db', '-f', CONFIG], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      haproxy.stdout?.on('data', (d: Buffer) => (haproxyLog += d));
      haproxy.stderr?.on('data', (d: Buffer) => (haproxyLog += d));
      for (let i = 0; ; i++) {
        const up = await browse(fx, port, 'GET', '/healthz').catch(() => undefined);
        if (up?.status === 200) break;
        if (i > 100) throw new Error(`HAProxy does not answer: ${haproxyLog}`);
        await sleep(100);
      }
    });

    after(async () => {
      haproxy?.kill('SIGKILL');
      for (const p of instances) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
      await Promise.all(instances.map((p) => p.exited));
      if (database) await dropDatabase(database);
      if (dir) await rm(dir, { recursive: true, force: true });
      if (fx) await rm(fx.dir, { recursive: true, force: true });
    });

    test('devices and an operator through HAProxy while one instance is killed: nothing acknowledged is lost, every address is the client’s', async (t) => {
      // The operator signs in through HAProxy and mints one enrollment link per device.
      const login = await browse(fx, port, 'POST', '/login', { form: { username: 'admin', password: PASSWORD } });
      assert.equal(login.status, 303, login.body);
      const cookie = (String(login.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '').trim();
      const page = await browse(fx, port, 'GET', '/devices', { cookie });
      assert.equal(page.status, 200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
      const devices: Device[] = [];
      for (let i = 0; i < DEVICES; i++) {
        const minted = await browse(fx, port, 'POST', '/enroll-tokens', { cookie, form: { csrf } });
        const link = new URL(/(paddock:\/\/enroll\?[^<"]+)/.exec(minted.body)?.[1]?.replaceAll('&amp;', '&') ?? '');
        const pins = link.searchParams.getAll('pin');
        const token = link.searchParams.get('token') ?? '';
        const address = deviceAddress(i);
        const enrolled = await deviceRequest(port, address, pins, 'POST', '/v1/enroll', {
          body: JSON.stringify({ token, name: `behind-haproxy-${i}` }),
          headers: { 'content-type': 'application/json' },
        });
        assert.equal(enrolled.status, 201, enrolled.body);
        const { device, credential } = JSON.parse(enrolled.body) as { device: string; credential: string };
        devices.push({ address, id: device, credential, pins });
      }

      let stopping = false;
      const acknowledged: Array<{ device: string; run: string; at: number }> = [];
      /** Upload attempts that failed and were retried (connections cut by the kill, or refused). */
      let uploadRetries = 0;
      /** Uploads acknowledged only after a retry. */
      let uploadsRetried = 0;
      /** Held requests cut off (by the kill), asked again. */
      let heldCut = 0;
      let gaveUp = 0;

      /** One upload as the reference client makes it: up to eight attempts, backoff from 250 ms (src/device_client/client.ts). */
      async function upload(d: Device, run: string, headers: Record<string, string> = {}): Promise<void> {
        for (let attempt = 1; ; attempt++) {
          let retryable = true;
          try {
            const res = await deviceRequest(port, d.address, d.pins, 'PUT', `/v1/runs/${run}`, {
              credential: d.credential,
              body: `run ${run} of ${d.id}\n`,
              headers: { 'x-privacy-level': 'full', 'content-type': 'text/plain', ...headers },
            });
            if (res.status === 200 || res.status === 201) {
              acknowledged.push({ device: d.id, run, at: performance.now() });
              if (attempt > 1) uploadsRetried++;
              return;
            }
            retryable = RETRYABLE.has(res.status);
            if (!retryable) throw new Error(`upload ${run}: ${res.status} ${res.body}`);
          } catch (err) {
            if (!retryable) throw err;
          }
          if (attempt >= 8) {
            gaveUp++;
            throw new Error(`upload ${run} failed after 8 attempts`);
          }
          uploadRetries++;
          await sleep(250 * 2 ** (attempt - 1) * (0.5 + Math.random() / 2));
        }
      }

      /** Uploads one run after another until the test stops it. */
      async function uploader(d: Device): Promise<void> {
        for (let n = 0; !stopping; n++) await upload(d, `steady-${n}`);
      }

      /** Holds `GET /v1/requests?wait=` open, as `paddock device watch` does, and answers the first request with a run. */
      async function watcher(d: Device): Promise<string> {
        for (let failures = 0; ;) {
          try {
            const res = await deviceRequest(port, d.address, d.pins, 'GET', '/v1/requests?wait=20', {
              credential: d.credential,
              headers: { accept: 'application/json' },
              timeoutMs: 35_000,
            });
            if (res.status !== 200) throw new Error(`requests: ${res.status}`);
            const [asked] = (JSON.parse(res.body) as { requests: Array<{ id: string }> }).requests;
            failures = 0;
            if (asked) {
              await upload(d, `collected-${asked.id}`, { 'x-collection': asked.id });
              return asked.id;
            }
          } catch {
            heldCut++;
            await sleep(retryDelay(++failures, undefined));
          }
        }
      }

      const started = performance.now();
      const uploading = devices.map((d) => uploader(d));
      const watching = devices.map((d) => watcher(d));
      await sleep(3_000);
      const beforeKill = acknowledged.length;
      const [killed] = instances;
      assert.ok(killed);
      killed.child.kill('SIGKILL');
      const killedAt = performance.now();
      await killed.exited;

      // The operator asks every device for a run, through whichever instance is left.
      await sleep(1_000);
      const asked = await browse(fx, port, 'POST', '/collections', {
        cookie,
        form: { csrf, privacy: 'full', reason: 'after the kill', device: devices.map((d) => d.id) },
      });
      assert.equal(asked.status, 303, asked.body);
      const answered = await Promise.all(watching);
      assert.equal(new Set(answered).size, DEVICES);
      await sleep(Math.max(0, killedAt + 6_000 - performance.now()));
      stopping = true;
      await Promise.all(uploading);
      const after = await browse(fx, port, 'GET', '/devices', { cookie });
      assert.equal(after.status, 200);

      // Acknowledged against stored, from the database itself.
      const stored = await admin(
        async (c) => (await c.query<{ device_id: string; id: string }>('SELECT device_id, id FROM runs')).rows,
        database,
      );
      const keys = new Set(stored.map((r) => `${r.device_id}/${r.id}`));
      const lost = acknowledged.filter((a) => !keys.has(`${a.device}/${a.run}`));
      // The longest a device went without an acknowledged upload, across the kill.
      let longestPause = 0;
      for (const d of devices) {
        const times = [started, ...acknowledged.filter((a) => a.device === d.id).map((a) => a.at)];
        for (let i = 1; i < times.length; i++)
          longestPause = Math.max(longestPause, (times[i] ?? 0) - (times[i - 1] ?? 0));
      }
      const numbers = {
        acknowledged: acknowledged.length,
        acknowledgedBeforeKill: beforeKill,
        stored: stored.length,
        lost: lost.length,
        uploadsRetried,
        uploadRetries,
        heldRequestsCut: heldCut,
        gaveUp,
        longestPauseMs: Math.round(longestPause),
      };
      t.diagnostic(`kill -9 behind HAProxy: ${JSON.stringify(numbers)}`);
      process.stderr.write(`haproxy kill -9: ${JSON.stringify(numbers)}\n`);
      assert.equal(lost.length, 0, JSON.stringify(lost));
      assert.equal(gaveUp, 0);
      assert.ok(acknowledged.length > beforeKill + DEVICES, 'uploads went on after the kill');
      // Every acknowledged run is stored once; the stored ones are exactly those acknowledged.
      assert.equal(stored.length, new Set(acknowledged.map((a) => `${a.device}/${a.run}`)).size);
      assert.ok(uploadRetries + heldCut > 0, 'the kill was felt: some request was cut off and made again');

      // HAProxy's health checks (/healthz over TLS, PROXY v2 LOCAL) saw a go down, never b.
      assert.match(haproxyLog, /paddock\/a is DOWN/);
      assert.doesNotMatch(haproxyLog, /paddock\/b is DOWN/);

      // The audit trail names each client's own address, never HAProxy's.
      const audit = await admin(
        async (c) =>
          (
            await c.query<{ event: string; client: string | null; device: string | null }>(
              'SELECT event, client, device FROM audit',
            )
          ).rows,
        database,
      );
      const clients = new Set(audit.map((r) => r.client).filter((c) => c !== null));
      assert.ok(!clients.has('127.0.0.1'), `HAProxy's address in the audit trail: ${[...clients].join(', ')}`);
      assert.deepEqual(
        [...clients].sort(),
        [OPERATOR, ...devices.map((d) => d.address)].sort(),
        'the operator and every device, each under its own address',
      );
      for (const d of devices) {
        const enrolled = audit.find((r) => r.event === 'device.enrolled' && r.device === d.id);
        assert.equal(enrolled?.client, d.address);
      }
      for (const event of ['login.local.succeeded', 'enroll_token.minted', 'collection.created'])
        assert.ok(
          audit.some((r) => r.event === event && r.client === OPERATOR),
          `${event} from the operator's address`,
        );
    });
  });
}
