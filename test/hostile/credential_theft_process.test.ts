// A thief's rotation and the real device's reuse (docs/contract.md section 16), on the real
// `paddock serve` process over SQLite: a copied credential rotated by the thief, chained rotations
// within the minute giving one credential, the thief's first use ending the overlap, then the real
// device's concurrent requests with the credential it holds on several control routes: every
// answer 401 and never a 500, the device pending with the reason, one record each, the thief's
// credential refused with 403, and the process alive until SIGTERM, which it ends with 0.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { shownAccessToken } from '../support/harness.ts';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { workspaces } from '../support/workspace.ts';
import { PROCESS_PASSWORD, serveEnv, signInAndEnroll } from './process_load.ts';

const workspace = workspaces('paddock-theft-');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Signs in as the break-glass administrator and mints a personal access token for the admin API. */
async function adminToken(base: string): Promise<string> {
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: PROCESS_PASSWORD }),
    redirect: 'manual',
  });
  const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${base}/devices`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const made = await fetch(`${base}/tokens`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf, name: 'theft test' }),
  });
  const token = shownAccessToken(await made.text());
  assert.ok(token, 'an access token on the page');
  return token;
}

test("reuse is theft on the real process: a thief's rotations, the real device's concurrent requests with the replaced credential", async () => {
  const dir = await workspace();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const p = paddock(['serve'], serveEnv(dir, port));
  try {
    await p.waitFor(/serving on/);
    const { device, credential: real } = await signInAndEnroll(port);
    const token = await adminToken(base);
    const bearer = (credential: string) => ({ authorization: `Bearer ${credential}` });
    const rotate = (credential: string) =>
      fetch(`${base}/v1/credential`, { method: 'POST', headers: bearer(credential) });
    const put = (credential: string, id: string) =>
      fetch(`${base}/v1/runs/${id}`, {
        method: 'PUT',
        headers: { ...bearer(credential), 'x-privacy-level': 'full', 'content-type': 'text/plain' },
        body: `payload of ${id}\n`,
      });
    const facts = (credential: string) =>
      fetch(`${base}/v1/device/facts`, {
        method: 'PUT',
        headers: { ...bearer(credential), 'content-type': 'application/json' },
        body: '{"os":"real"}',
      });
    const audited = async (event: string) => {
      const res = await fetch(`${base}/api/v1/audit?event=${event}`, { headers: bearer(token) });
      assert.equal(res.status, 200, event);
      const { items } = (await res.json()) as { items: Array<{ event?: string; device?: string }> };
      return items.filter((item) => item.event === event && item.device === device).length;
    };

    // The thief holds a copy: it rotates, then chains 30 rotations with what it got, each within
    // the minute, so each answers the same credential and nothing more is rotated.
    const first = await rotate(real);
    assert.equal(first.status, 201);
    const { credential: thief } = (await first.json()) as { credential: string };
    assert.notEqual(thief, real);
    for (let i = 0; i < 30; i++) {
      const res = await rotate(thief);
      assert.equal(res.status, 201, `chained rotation ${i}`);
      assert.equal(((await res.json()) as { credential: string }).credential, thief, `chained rotation ${i}`);
    }
    // Its first use ends the replaced credential's overlap.
    assert.equal((await put(thief, 'thief-1')).status, 201);

    // The real device, with the credential it holds, on several control routes at once.
    const answers = await Promise.all([
      ...Array.from({ length: 30 }, (_, i) => put(real, `real-${i}`)),
      ...Array.from({ length: 10 }, () => fetch(`${base}/v1/requests`, { headers: bearer(real) })),
      ...Array.from({ length: 10 }, () => facts(real)),
    ]);
    const statuses = await Promise.all(
      answers.map(async (res) => {
        await res.arrayBuffer();
        return res.status;
      }),
    );
    assert.ok(!statuses.includes(500), statuses.join());
    assert.deepEqual(statuses, Array(50).fill(401));
    assert.match(answers[0]?.headers.get('www-authenticate') ?? '', /invalid_token/);

    // Pending with the reason, and the thief's credential refused until an administrator decides.
    const shown = await fetch(`${base}/api/v1/devices/${device}`, { headers: bearer(token) });
    assert.equal(shown.status, 200);
    const json = (await shown.json()) as { status: string; pending_reason: string | null };
    assert.deepEqual([json.status, json.pending_reason], ['pending', 'credential reused']);
    assert.equal((await put(thief, 'thief-2')).status, 403);
    assert.equal((await rotate(thief)).status, 403);

    // The audit trail is written behind the answer: waited for, then checked not to grow.
    for (let i = 0; i < 50 && (await audited('device.credential_reused')) === 0; i++) await sleep(100);
    await sleep(300);
    assert.equal(await audited('device.credential_reused'), 1, 'one device.credential_reused record');
    assert.equal(await audited('device.credential_rotated'), 1, 'one device.credential_rotated record');

    // Still alive, and a SIGTERM ends it with 0.
    assert.equal((await fetch(`${base}/healthz`)).status, 200);
    assert.equal(p.child.exitCode, null, 'still running');
    p.child.kill('SIGTERM');
    assert.equal(await p.exited, 0, p.output().stderr);
    const { stdout, stderr } = p.output();
    assert.doesNotMatch(`${stdout}${stderr}`, /"level":"error"/);
    assert.equal(stdout.match(/"event":"device\.credential_reused"/g)?.length, 1, 'logged once');
  } finally {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
    await p.exited;
  }
});
