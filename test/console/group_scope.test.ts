// Groups own devices (docs/contract.md section 19), through the console and the JSON API: a member
// of group:ops sees and acts on ops's devices and runs as on its own, and on nothing of dev's,
// which answers 404 as a missing device; a change of its groups reaches its session and its token
// at their next request; revoke and mint stay admin only; minting for a group enrolls its devices.
import assert from 'node:assert/strict';
import { refusedMessage } from '../support/refused.ts';
import { test } from 'node:test';
import { consoleAccessToken, enrollDevice, form, harness, type Harness, upload } from '../support/harness.ts';

const carol = { subject: 'oidc:carol', display: 'Carol', admin: false };
const admin = { subject: 'local:admin', admin: true };

async function fleet() {
  const h = await harness();
  const ops = await enrollDevice(h, 'group:ops', 'Ops Router');
  const dev = await enrollDevice(h, 'group:dev', 'Dev Board');
  const bob = await enrollDevice(h, 'oidc:bob', 'Bob Phone');
  await upload(h, ops.credential, 'run-ops', 'ops');
  await upload(h, dev.credential, 'run-dev', 'dev');
  await upload(h, bob.credential, 'run-bob', 'bob');
  await h.store.setAccountGroups(carol.subject, ['ops']);
  return { h, ops, dev, bob };
}

function session(h: Harness, who: { subject: string; admin: boolean }) {
  const { cookie, csrf } = h.signIn(who);
  return {
    cookie,
    csrf,
    get: (path: string) => h.request(path, { headers: { cookie } }),
    post: (path: string, fields: Record<string, string> = {}) => h.request(path, form({ csrf, ...fields }, cookie)),
  };
}

test("console: a member of group:ops sees ops's devices and runs, and dev's answer 404 as missing ones", async () => {
  const { h, ops, dev, bob } = await fleet();
  try {
    const s = session(h, carol);
    const list = await (await s.get('/devices')).text();
    assert.ok(list.includes(ops.device) && list.includes('Ops Router'), 'ops device listed');
    for (const other of [dev.device, bob.device]) assert.ok(!list.includes(other), `${other} not listed`);
    assert.equal((await s.get(`/devices/${ops.device}`)).status, 200);
    const missing = await s.get('/devices/d_nosuchdevice0000');
    for (const other of [dev.device, bob.device]) {
      const res = await s.get(`/devices/${other}`);
      assert.equal(res.status, 404);
      assert.equal(await res.text(), await missing.clone().text(), 'as a missing device');
    }
    const runs = await (await s.get('/runs')).text();
    assert.ok(runs.includes('run-ops') && !runs.includes('run-dev') && !runs.includes('run-bob'), runs);
    assert.equal((await s.get(`/runs/${ops.device}/run-ops`)).status, 200);
    assert.equal((await s.get(`/runs/${dev.device}/run-dev`)).status, 404);
    assert.equal((await s.get(`/runs/${ops.device}/run-ops/raw`)).status, 200);
    assert.equal((await s.get(`/runs/${dev.device}/run-dev/raw`)).status, 404);
    assert.ok((await (await s.get('/devices?owner=group%3Aops')).text()).includes(ops.device));
    assert.ok(!(await (await s.get('/devices?owner=group%3Adev')).text()).includes(dev.device));
    // Owner or admin: a member renames its group's device, not another's.
    assert.equal((await s.post(`/devices/${ops.device}/rename`, { name: 'Ops Edge' })).status, 303);
    assert.equal((await h.store.deviceVisibleTo(admin, ops.device))?.name, 'Ops Edge');
    assert.equal((await s.post(`/devices/${dev.device}/rename`, { name: 'Mine now' })).status, 404);
    // Revoke stays admin only, for a member as for an owner (the specification).
    assert.equal((await s.post(`/devices/${ops.device}/revoke`)).status, 403);
    // A bulk deletion deletes the group's run, and leaves dev's as it is.
    const bulk = await h.request('/runs/bulk', form({ csrf: s.csrf, run: `${ops.device}/run-ops` }, s.cookie));
    assert.equal(bulk.status, 303);
    const both = new URLSearchParams([
      ['csrf', s.csrf],
      ['run', `${dev.device}/run-dev`],
    ]);
    await h.request('/runs/bulk', {
      method: 'POST',
      headers: { cookie: s.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: both.toString(),
    });
    assert.equal(await h.store.runVisibleTo(admin, ops.device, 'run-ops'), undefined);
    assert.ok(await h.store.runVisibleTo(admin, dev.device, 'run-dev'));
  } finally {
    await h.close();
  }
});

test('console: a change of groups reaches the same session at its next request', async () => {
  const { h, ops, dev } = await fleet();
  try {
    const s = session(h, carol);
    assert.equal((await s.get(`/devices/${ops.device}`)).status, 200);
    await h.store.setAccountGroups(carol.subject, ['dev']);
    assert.equal((await s.get(`/devices/${ops.device}`)).status, 404);
    assert.equal((await s.get(`/devices/${dev.device}`)).status, 200);
    const list = await (await s.get('/devices')).text();
    assert.ok(list.includes(dev.device) && !list.includes(ops.device));
    await h.store.setAccountGroups(carol.subject, []);
    assert.equal((await s.get(`/devices/${dev.device}`)).status, 404);
  } finally {
    await h.close();
  }
});

test("API: a member's token lists its group's devices and runs; a change of groups reaches it at its next call", async () => {
  const { h, ops, dev } = await fleet();
  try {
    const { value } = await consoleAccessToken(h, carol);
    const api = (path: string, init: RequestInit = {}) =>
      h.request(path, { ...init, headers: { authorization: `Bearer ${value}`, ...(init.headers ?? {}) } });
    const ids = async () =>
      ((await (await api('/api/v1/devices')).json()) as { items: Array<{ id: string }> }).items.map((d) => d.id);
    assert.deepEqual(await ids(), [ops.device]);
    const runs = (await (await api('/api/v1/runs')).json()) as { items: Array<{ id: string }> };
    assert.deepEqual(
      runs.items.map((r) => r.id),
      ['run-ops'],
    );
    assert.equal((await api(`/api/v1/devices/${dev.device}`)).status, 404);
    assert.equal((await api(`/api/v1/runs/${dev.device}/run-dev`)).status, 404);
    await h.store.setAccountGroups(carol.subject, ['dev']);
    assert.deepEqual(await ids(), [dev.device]);
    assert.equal((await api(`/api/v1/devices/${ops.device}`)).status, 404);
    // Mint stays admin only.
    const mint = await api('/api/v1/enroll-tokens', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'group:dev' }),
    });
    assert.equal(mint.status, 403);
  } finally {
    await h.close();
  }
});

test('minting for group:ops: the console and the API take it, the enrolled device belongs to the group; a bad owner is a 400 naming it', async () => {
  const h = await harness();
  try {
    const s = session(h, admin);
    const page = await s.post('/enroll-tokens', { owner: 'group:ops' });
    assert.equal(page.status, 200);
    const [token] = (await h.store.outstandingEnrollTokens({ limit: 10 }, h.clock.now())).items;
    assert.equal(token?.owner, 'group:ops');
    for (const [owner, why] of [
      ['group:', /needs a name/],
      [`group:${'x'.repeat(129)}`, /at most 128 characters/],
      ['group:a\u0001b', /control character/],
      ['root', /"root": neither an account subject/],
    ] as const) {
      // docs/contract.md section 22: the tokens page, the owner's message beside its field.
      const { id, message } = await refusedMessage(await s.post('/enroll-tokens', { owner }), owner);
      assert.equal(id, 'owner');
      assert.match(message, /^owner must be an account subject/);
      assert.match(message.replaceAll('&quot;', '"'), why);
    }
    const { value } = await consoleAccessToken(h, admin);
    const api = (body: unknown) =>
      h.request('/api/v1/enroll-tokens', {
        method: 'POST',
        headers: { authorization: `Bearer ${value}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const minted = await api({ owner: 'group:Field Ops/Berlin' });
    assert.equal(minted.status, 201, await minted.clone().text());
    assert.equal(((await minted.json()) as { token: { owner: string } }).token.owner, 'group:Field Ops/Berlin');
    const bad = await api({ owner: 'group:' });
    assert.equal(bad.status, 400);
    const problem = (await bad.json()) as { field: string; detail: string };
    assert.equal(problem.field, 'owner');
    assert.match(problem.detail, /"group:"/);
    // A device enrolled with a group's token belongs to the group.
    const enrolled = await enrollDevice(h, 'group:ops', 'Ops Two');
    assert.equal((await h.store.deviceVisibleTo(admin, enrolled.device))?.owner, 'group:ops');
  } finally {
    await h.close();
  }
});
