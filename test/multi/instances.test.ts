// Two real `paddock serve` processes on one PostgreSQL database of their own: what one does, the
// other sees at once; the database going away and coming back loses no acknowledged upload; and
// the README's backup and restore bring it all back. The instances reach the database through a
// loopback proxy, so "the database goes away" never touches the server other tests use.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { shownAccessToken } from '../support/harness.ts';
import { type PaddockProcess, paddock } from '../support/process.ts';
import { consoleClient } from './client.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  serverAddress,
  sharedDatabaseEnv,
  SKIP_REASON,
  terminateSessions,
} from '../support/postgres.ts';
import { type TcpProxy, tcpProxy } from '../support/tcp_proxy.ts';

const available = await postgresAvailable();
let password = 'two instances password';

interface Instance {
  p: PaddockProcess;
  base: string;
}

const { form, login, signIn, mintToken, enroll, upload, device } = consoleClient(() => password);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

if (!available) {
  test(`two instances on one PostgreSQL database (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('two instances on one database', () => {
    let database: string;
    let proxy: TcpProxy;
    let url: string;
    let dir: string;
    let a: Instance;
    let b: Instance;
    /** A database restart under way, awaited before the proxy closes. */
    let restart: Promise<void> | undefined;

    async function start(name: string): Promise<Instance> {
      const p = paddock(['serve'], {
        PADDOCK_LISTEN: '127.0.0.1:0',
        PADDOCK_BASE_URL: 'http://127.0.0.1:8080',
        PADDOCK_DATA_DIR: join(dir, name),
        ...sharedDatabaseEnv(url, dir),
        PADDOCK_ADMIN_PASSWORD: password,
      });
      return { p, base: (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '' };
    }

    async function stop(instance: Instance) {
      instance.p.child.kill('SIGTERM');
      assert.equal(await instance.p.exited, 0);
    }

    const alive = (instance: Instance) => instance.p.child.exitCode === null && instance.p.child.signalCode === null;

    before(async () => {
      database = await freshDatabase();
      proxy = await tcpProxy(serverAddress());
      url = databaseUrl(database, proxy.port);
      dir = await mkdtemp(join(tmpdir(), 'paddock-multi-'));
      // Started together: both run the migrations, one at a time under the advisory lock.
      [a, b] = await Promise.all([start('a'), start('b')]);
    });
    after(async () => {
      await restart?.catch(() => undefined);
      for (const instance of [a, b]) if (instance && alive(instance)) instance.p.child.kill('SIGKILL');
      await proxy?.close();
      if (database) await dropDatabase(database);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('a session created on one is valid on the other (the session key is shared through the database)', async () => {
      const { cookie } = await signIn(a.base);
      const res = await fetch(`${b.base}/`, { headers: { cookie }, redirect: 'manual' });
      assert.equal(res.status, 200);
      assert.match(await res.text(), /Signed in as <strong>admin<\/strong>/);
    });

    test('throttle: failures counted on one delay attempts on the other, and both answer one at a time', async () => {
      for (let i = 0; i < 3; i++) assert.equal((await login(a.base, 'wrong guess!')).status, 401);
      // Three failures: the next attempt waits 1 s, the one after it 2 s; taken in turn, the later ends after 3 s.
      const started = Date.now();
      const ended = await Promise.all(
        [a.base, b.base].map(async (base) => {
          assert.equal((await login(base, 'wrong guess!')).status, 401);
          return Date.now() - started;
        }),
      );
      const [first, second] = ended.sort((x, y) => x - y);
      assert.ok((first ?? 0) >= 950, `the first attempt waited ${first} ms`);
      assert.ok((second ?? 0) >= 2_900, `the second attempt waited ${second} ms: it did not wait for the first`);
      // A success would reset the count, after a 4 s delay; the test clears it directly instead.
      await admin((c) => c.query('DELETE FROM login_failures'), database);
    });

    test('both serve one control certificate: their enrollment links carry the same pin', async () => {
      const pins = await Promise.all(
        [a.base, b.base].map(async (base) => {
          const { cookie, csrf } = await signIn(base);
          const page = await (await fetch(`${base}/enroll-tokens`, form({ csrf }, cookie))).text();
          return /pin=(sha256\/[A-Za-z0-9%/=]+)/.exec(page)?.[1];
        }),
      );
      assert.ok(pins[0]);
      assert.equal(pins[0], pins[1]);
    });

    test('a token minted on one enrolls exactly once across both under concurrent attempts', async () => {
      const token = await mintToken(a.base);
      const statuses = (
        await Promise.all(Array.from({ length: 10 }, (_, i) => enroll(i % 2 ? a.base : b.base, token)))
      ).map((r) => r.status);
      assert.deepEqual(statuses.sort(), [201, 401, 401, 401, 401, 401, 401, 401, 401, 401]);
    });

    test('the same run id at once on both: stored once; other bytes: one 201 and one 409', async () => {
      const { credential } = await device(a.base);
      for (let round = 0; round < 5; round++) {
        const same = await Promise.all([
          upload(a.base, credential, `twin-${round}`),
          upload(b.base, credential, `twin-${round}`),
        ]);
        assert.deepEqual(same.map((r) => r.status).sort(), [200, 201]);
        const other = await Promise.all([
          upload(a.base, credential, `split-${round}`, 'one'),
          upload(b.base, credential, `split-${round}`, 'two'),
        ]);
        assert.deepEqual(other.map((r) => r.status).sort(), [201, 409]);
      }
    });

    test('a revoke on one refuses uploads on the other at once', async () => {
      const { device: id, credential } = await device(a.base);
      assert.equal((await upload(b.base, credential, 'before')).status, 201);
      const { cookie, csrf } = await signIn(a.base);
      assert.equal((await fetch(`${a.base}/devices/${id}/revoke`, form({ csrf }, cookie))).status, 303);
      assert.equal((await upload(b.base, credential, 'after')).status, 401);
    });

    test('reuse is theft across both: a rotation on one, the replaced credential presented on the other after its overlap (docs/contract.md section 16)', async () => {
      const { device: id, credential: real } = await device(a.base);
      const rotate = (base: string, credential: string) =>
        fetch(`${base}/v1/credential`, { method: 'POST', headers: { authorization: `Bearer ${credential}` } });
      const made = await rotate(a.base, real);
      assert.equal(made.status, 201);
      const { credential: thief } = (await made.json()) as { credential: string };
      assert.equal((await upload(a.base, thief, 'thief-a')).status, 201, 'first used on A: the overlap ends');
      assert.equal((await upload(b.base, thief, 'thief-b')).status, 201, 'B remembers the lookup');
      // The real device, on B, many times at once: 401 each, one change to pending, one record.
      const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => upload(b.base, real, `real-${i}`)));
      assert.deepEqual(
        answers.map((r) => r.status),
        Array(10).fill(401),
      );
      assert.deepEqual(
        [(await upload(b.base, thief, 'thief-b2')).status, (await upload(a.base, thief, 'thief-a2')).status],
        [403, 403],
        'neither instance lets the other copy through',
      );
      const state = () =>
        admin(
          async (c) =>
            (
              await c.query(
                `SELECT (SELECT pending_reason FROM devices WHERE id = $1) AS reason,
                  (SELECT count(*) FROM audit WHERE event = 'device.credential_reused' AND device = $1) AS records`,
                [id],
              )
            ).rows as Array<{ reason: string; records: string }>,
          database,
        );
      // The audit trail is written behind the answer: waited for, then checked not to grow.
      for (let i = 0; i < 50 && (await state())[0]?.records === '0'; i++) await sleep(100);
      await sleep(300);
      assert.deepEqual(await state(), [{ reason: 'credential reused', records: '1' }]);
      const { cookie, csrf } = await signIn(a.base);
      assert.match(await (await fetch(`${a.base}/devices/${id}`, { headers: { cookie } })).text(), /credential reused/);
      assert.equal((await fetch(`${a.base}/devices/${id}/approve`, form({ csrf }, cookie))).status, 303);
      assert.equal((await upload(b.base, thief, 'thief-b3')).status, 201, 'approved: the current credential works');
    });

    test('a personal access token revoked on one is refused on the other at once', async () => {
      const { cookie, csrf } = await signIn(a.base);
      const page = await (await fetch(`${a.base}/tokens`, form({ csrf, name: 'two instances' }, cookie))).text();
      const token = shownAccessToken(page) ?? '';
      const listed = await (await fetch(`${b.base}/tokens`, { headers: { cookie } })).text();
      const id = /action="\/tokens\/(a_[A-Za-z0-9_-]+)\/revoke"/.exec(listed)?.[1] ?? '';
      const list = (base: string) => fetch(`${base}/api/v1/devices`, { headers: { authorization: `Bearer ${token}` } });
      assert.deepEqual([(await list(a.base)).status, (await list(b.base)).status], [200, 200]);
      assert.equal((await fetch(`${a.base}/tokens/${id}/revoke`, form({ csrf }, cookie))).status, 303);
      assert.deepEqual([(await list(b.base)).status, (await list(a.base)).status], [401, 401]);
    });

    test('a session ended on one is refused on the other at once (docs/contract.md section 14)', async () => {
      const mine = await signIn(a.base);
      const third = await signIn(b.base);
      // A session told apart on the sessions page by its browser.
      const init = form({ username: 'admin', password });
      const signedIn = await fetch(`${a.base}/login`, {
        ...init,
        headers: { ...init.headers, 'user-agent': 'other-agent/1' },
      });
      const other = (signedIn.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const on = async (base: string, cookie: string) =>
        (await fetch(`${base}/devices`, { headers: { cookie }, redirect: 'manual' })).status;
      assert.deepEqual([await on(b.base, other), await on(a.base, third.cookie)], [200, 200]);

      // The sessions page on b lists the session made on a; ending it on b refuses it on a at once.
      const page = await (await fetch(`${b.base}/sessions`, { headers: { cookie: mine.cookie } })).text();
      const row = page.split('<form').find((f) => f.includes('(other-agent/1)')) ?? '';
      const id = /\/sessions\/(s_[A-Za-z0-9_-]+)\/end"/.exec(row)?.[1] ?? '';
      assert.ok(id, page);
      assert.equal((await fetch(`${b.base}/sessions/${id}/end`, form({ csrf: mine.csrf }, mine.cookie))).status, 303);
      assert.deepEqual([await on(a.base, other), await on(b.base, other)], [303, 303]);
      assert.equal(await on(a.base, third.cookie), 200, 'the others are untouched');

      // End all others, on a: the session made on b is refused on b.
      assert.equal((await fetch(`${a.base}/sessions/end-others`, form({ csrf: mine.csrf }, mine.cookie))).status, 303);
      assert.deepEqual([await on(b.base, third.cookie), await on(a.base, third.cookie)], [303, 303]);
      assert.deepEqual([await on(a.base, mine.cookie), await on(b.base, mine.cookie)], [200, 200]);
    });

    test('set-admin-password with PADDOCK_DATABASE_URL changes the password every instance checks', async () => {
      const next = 'a new shared password';
      const set = paddock(
        ['set-admin-password'],
        { ...sharedDatabaseEnv(url, dir), PADDOCK_DATA_DIR: join(dir, 'cli') },
        `${next}\n`,
      );
      assert.equal(await set.exited, 0, set.output().stderr);
      assert.equal((await login(a.base, next)).status, 303);
      assert.equal((await login(b.base, next)).status, 303);
      password = next;
    });

    test('database away: 503 in plain text, /healthz answers, the guard fails closed; back: service resumes', async () => {
      const { cookie } = await signIn(a.base);
      await proxy.down();
      try {
        const list = await fetch(`${a.base}/runs`, { headers: { cookie } });
        assert.equal(list.status, 503);
        assert.match(list.headers.get('content-type') ?? '', /^text\/plain/);
        const text = await list.text();
        assert.match(text, /store is unavailable/);
        assert.doesNotMatch(text, /\.ts:\d+|at async|Error/);
        const upload503 = await upload(b.base, 'x'.repeat(43), 'r');
        assert.equal(upload503.status, 503);
        assert.deepEqual(await (await fetch(`${b.base}/healthz`)).json(), { ok: true, version: '0.1.0' });
        // The guard cannot tell whether the session is live: it fails closed, the dashboard too (issue 34, finding 4).
        const dash = await fetch(`${a.base}/`, { headers: { cookie } });
        assert.equal(dash.status, 503);
        assert.match(await dash.text(), /store is unavailable/);
      } finally {
        await proxy.up();
      }
      for (const instance of [a, b]) {
        let status = 0;
        for (let i = 0; i < 50 && status !== 200; i++) {
          status = (await fetch(`${instance.base}/runs`, { headers: { cookie } })).status;
          if (status !== 200) await sleep(100);
        }
        assert.equal(status, 200, 'resumed without a restart');
      }
      assert.ok(alive(a) && alive(b));
    });

    test('a database restart in the middle of a bounded load loses no acknowledged upload', async () => {
      const devices = await Promise.all([device(a.base), device(b.base)]);
      const acknowledged: Array<{ device: string; id: string; body: string }> = [];
      let sent = 0;
      let refused = 0;
      let failed = false;
      const deadline = Date.now() + 40_000;
      // What a restart looks like from the instances: every session ended by the server (57P01),
      // then connections refused for a while, then the database answers again.
      const restartDatabase = async () => {
        assert.ok((await terminateSessions(database)) > 0, 'the instances had sessions to end');
        await proxy.down();
        await sleep(1_500);
        await proxy.up();
      };
      // Four clients (two per instance), 40 uploads each, each retried until acknowledged (or time runs out).
      await Promise.all(
        Array.from({ length: 4 }, async (_, client) => {
          const { device: id, credential } = devices[client % 2] ?? { device: '', credential: '' };
          const base = client % 2 ? b.base : a.base;
          for (let n = 0; n < 40; n++) {
            const runId = `load-${client}-${n}`;
            const body = `client ${client} upload ${n} `.repeat(20);
            if (++sent === 60) restart = restartDatabase();
            while (Date.now() < deadline && !failed) {
              const status = await upload(base, credential, runId, body).then(
                (r) => r.status,
                () => 0,
              );
              if (status === 201 || status === 200) {
                acknowledged.push({ device: id, id: runId, body });
                break;
              }
              // Anything but 503 (0: the instance is gone) fails the test; the other clients stop too.
              failed ||= status !== 503;
              assert.equal(status, 503, 'a refused upload answers 503');
              refused++;
              await sleep(100);
            }
          }
        }),
      );
      await restart;
      assert.ok(alive(a) && alive(b), 'no instance ended when the database went away');
      assert.ok(refused > 0, 'the restart happened while uploads were under way');
      assert.equal(acknowledged.length, 160, 'every upload was acknowledged in the end');
      const { cookie } = await signIn(b.base);
      for (const run of acknowledged) {
        const res = await fetch(`${b.base}/runs/${run.device}/${run.id}`, { headers: { cookie } });
        assert.equal(res.status, 200, `${run.device}/${run.id} readable`);
        assert.ok((await res.text()).includes(run.body.trim()), `${run.device}/${run.id} as uploaded`);
      }
    });

    test('backup and restore as the README says: pg_dump, stop, pg_restore, start', async () => {
      const { device: id, credential } = await device(a.base);
      assert.equal((await upload(a.base, credential, 'kept')).status, 201);
      const { cookie } = await signIn(a.base);
      const dump = join(dir, 'paddock.dump');
      const direct = databaseUrl(database);
      execFileSync('pg_dump', ['--format=custom', `--file=${dump}`, direct]);
      assert.equal((await upload(b.base, credential, 'after-the-backup')).status, 201);
      await Promise.all([stop(a), stop(b)]);
      execFileSync('pg_restore', ['--clean', '--if-exists', `--dbname=${direct}`, dump]);
      a = await start('restored');
      assert.equal(
        (await fetch(`${a.base}/runs/${id}/kept`, { headers: { cookie } })).status,
        200,
        'session key and run restored',
      );
      assert.equal((await fetch(`${a.base}/runs/${id}/after-the-backup`, { headers: { cookie } })).status, 404);
      assert.equal((await upload(a.base, credential, 'after-the-restore')).status, 201, 'credential restored');
    });
  });
}
