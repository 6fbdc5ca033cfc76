// `paddock device watch` end to end (docs/contract.md section 15), against a real server over TLS:
// an operator asks through the JSON API; the device, a `paddock device` process, runs its command
// and answers: a run stored at the level asked and redacted on the device, a decline with the
// command's exit status, a request picked up by a held ask moments after it was created, a stop
// by SIGTERM, an exit after revoke, and an unreachable server.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { enroll } from '../../src/device_client/client.ts';
import { TOO_LARGE } from '../../src/device_client/collect.ts';
import { type DeviceState, writeState } from '../../src/device_client/state.ts';
import type { RunningServer } from '../../src/server/serve.ts';
import { startTlsServer, type TlsServer } from '../support/tls_server.ts';
import { paddock } from '../support/process.ts';
import { freePort, httpsRequest, lookup, type TlsFixture } from '../support/tls_fixture.ts';

const RESOLVE = ['--resolve', 'control.test:127.0.0.1'];
let tls: TlsServer;
let fx: TlsFixture;
let server: RunningServer;
let admin: string;
let auth: Record<string, string>;

before(async () => {
  tls = await startTlsServer('watch loop');
  ({ fx, server, admin, auth } = tls);
});
after(() => server.close());
const api: TlsServer['api'] = (...args) => tls.api(...args);

/** A device enrolled through a link minted in the API, its state in a file of its own. */
async function device(name: string): Promise<{ state: DeviceState; file: string }> {
  const minted = await api('POST', '/enroll-tokens', {});
  assert.equal(minted.status, 201);
  const state = await enroll(String(minted.body?.link), name, { discoveryCa: fx.admin.certPem, lookup });
  const file = join(fx.dir, `${name}.json`);
  await writeState(file, state);
  return { state, file };
}

/** Asks the devices for a run; returns the collection's id. */
async function ask(devices: string[], privacy: string, reason: string): Promise<string> {
  const created = await api('POST', '/collections', { devices, privacy, reason });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  return String(created.body?.id);
}

type Target = { device: string; state: string; run: string | null; reason: string | null };

async function targets(collection: string): Promise<Target[]> {
  const res = await api('GET', `/collections/${collection}/targets`);
  assert.equal(res.status, 200);
  return res.body?.items as Target[];
}

function watch(file: string, ...args: string[]) {
  return paddock(['device', 'watch', '--state', file, ...RESOLVE, ...args], {});
}

describe('paddock device watch', () => {
  test('--once fulfils what is open: the command sees the request, the run is stored at the level asked, redacted on the device', async () => {
    const [plain, strict] = await Promise.all([device('watch-1'), device('watch-2')]);
    // The second device's own ceiling is stricter than the server knows: it sends at its ceiling.
    await writeState(strict.file, { ...strict.state, maxPrivacy: 'minimal' });
    const collection = await ask([plain.state.device, strict.state.device], 'redacted', 'disk check');
    const command = `printf 'pressure=1.2 operator=alice from 10.1.2.3\\nasked %s %s (%s)\\n' "$PADDOCK_REQUEST_ID" "$PADDOCK_REQUEST_PRIVACY" "$PADDOCK_REQUEST_REASON"`;
    const runs = [
      watch(plain.file, '--once', '--collect', command),
      watch(strict.file, '--once', '--collect', command),
    ];
    for (const p of runs) assert.equal(await p.exited, 0, p.output().stderr);

    const byDevice = new Map((await targets(collection)).map((t) => [t.device, t]));
    const first = byDevice.get(plain.state.device);
    assert.equal(first?.state, 'fulfilled');
    const run = await api('GET', `/runs/${plain.state.device}/${first?.run}`);
    assert.equal(run.body?.privacy, 'redacted');
    const raw = await httpsRequest(`${admin}/api/v1/runs/${plain.state.device}/${first?.run}/raw`, {
      ca: fx.admin.certPem,
      headers: auth,
    });
    const request = /request (r_\d+) \(redacted/.exec(runs[0]?.output().stderr ?? '')?.[1];
    assert.equal(
      raw.body,
      `pressure=1.2 operator=[redacted] from [redacted]\nasked ${request} redacted (disk check)\n`,
      'the command saw the request; the device redacted its output',
    );

    const second = byDevice.get(strict.state.device);
    assert.equal(second?.state, 'fulfilled');
    const minimal = await api('GET', `/runs/${strict.state.device}/${second?.run}`);
    assert.equal(minimal.body?.privacy, 'minimal', 'above its ceiling, the device sent at its ceiling');
    assert.match(runs[1]?.output().stderr ?? '', /above this device's ceiling \(minimal\): sending minimal/);
    assert.equal((await api('GET', `/collections/${collection}`)).body?.open, false);
  });

  test('--once declines when the command fails (its exit status) or says too much (the run limit)', async () => {
    const { state, file } = await device('watch-3');
    const failing = await ask([state.device], 'full', 'crash report');
    const big = await ask([state.device], 'full', 'big');
    const command =
      'if [ "$PADDOCK_REQUEST_REASON" = big ]; then head -c 17000000 /dev/zero; else echo partial; echo "no disk" >&2; exit 3; fi';
    const p = watch(file, '--once', '--collect', command);
    assert.equal(await p.exited, 0, p.output().stderr);
    assert.deepEqual(
      (await targets(failing)).map((t) => [t.state, t.reason, t.run, (t as { stderr?: unknown }).stderr]),
      [['declined', 'command exited with status 3', null, 'no disk\n']],
      "the decline keeps the command's standard error",
    );
    assert.match(p.output().stderr, /no disk/, "which still reaches the watch's own");
    assert.deepEqual(
      (await targets(big)).map((t) => [t.state, t.reason]),
      [['declined', TOO_LARGE]],
    );
    const again = watch(file, '--once', '--collect', 'true');
    assert.equal(await again.exited, 0);
    assert.match(again.output().stderr, /no open requests/);
  });

  test("enrolling with a token that needs approval says the device waits for an administrator's approval", async () => {
    const minted = await api('POST', '/enroll-tokens', { approval: 'required' });
    const logs: string[] = [];
    const state = await enroll(String(minted.body?.link), 'waits', {
      discoveryCa: fx.admin.certPem,
      lookup,
      log: (l) => logs.push(l),
    });
    assert.ok(
      logs.includes(
        `enrolled as ${state.device}; waiting for an administrator's approval (until then it may only report its facts)`,
      ),
      logs.join('\n'),
    );
    const active = await device('does-not-wait');
    assert.equal((await api('GET', `/devices/${active.state.device}`)).body?.status, 'active');
  });

  test('held open, it takes a request created after it started within moments, and ends with exit 1 once revoked', async () => {
    const { state, file } = await device('watch-4');
    const p = watch(file, '--wait', '3', '--collect', 'echo held');
    await p.waitFor(/watching for requests/);
    // Let the first ask reach the server and be held.
    await new Promise((r) => setTimeout(r, 300));
    const asked = Date.now();
    const collection = await ask([state.device], 'full', 'while held');
    let answered: Target | undefined;
    while (Date.now() - asked < 5_000 && answered?.state !== 'fulfilled') {
      await new Promise((r) => setTimeout(r, 100));
      answered = (await targets(collection))[0];
    }
    assert.equal(answered?.state, 'fulfilled', p.output().stderr);
    assert.ok(Date.now() - asked < 2_500, `answered after ${Date.now() - asked} ms`);
    assert.equal(
      (
        await httpsRequest(`${admin}/api/v1/runs/${state.device}/${answered.run}/raw`, {
          ca: fx.admin.certPem,
          headers: auth,
        })
      ).body,
      'held\n',
    );

    assert.equal((await api('POST', `/devices/${state.device}/revoke`)).status, 204);
    assert.equal(await p.exited, 1);
    assert.match(
      p.output().stderr,
      /paddock device: asking for requests refused: this device's credential is unknown or revoked/,
    );
  });

  test('SIGTERM stops a held watch at once with exit 0; --once against a server that does not answer exits 3', async () => {
    const { state, file } = await device('watch-5');
    const held = watch(file, '--collect', 'echo never');
    await held.waitFor(/watching for requests/);
    await new Promise((r) => setTimeout(r, 300));
    const stopped = Date.now();
    held.child.kill('SIGTERM');
    assert.equal(await held.exited, 0, held.output().stderr);
    assert.ok(Date.now() - stopped < 2_000);
    assert.match(held.output().stderr, /SIGTERM: stopping/);

    const gone = join(fx.dir, 'gone.json');
    await writeState(gone, { ...state, controlUrl: `https://control.test:${await freePort()}` });
    const unreachable = watch(gone, '--once', '--collect', 'true');
    assert.equal(await unreachable.exited, 3);
    assert.match(unreachable.output().stderr, /paddock device: .*control\.test/);
    assert.equal(JSON.parse(await readFile(gone, 'utf8')).device, state.device);
  });
});
