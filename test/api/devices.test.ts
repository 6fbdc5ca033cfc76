// GET /api/v1/devices (docs/contract.md section 11): personal access tokens, the console's scoping and
// filters as JSON, strict parameters, errors as RFC 9457 problem details.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleAccessToken, enrollDevice, form, harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/** Creates a token through the console as `who` (a day's token unless told otherwise). */
const token = (h: Harness, who: keyof typeof ACCOUNTS, expiresIn = '86400') =>
  consoleAccessToken(h, ACCOUNTS[who], { name: `${who} script`, expires_in: expiresIn });

const api = (h: Harness, path: string, bearer?: string, client?: string) =>
  h.request(path, bearer === undefined ? {} : { headers: { authorization: `Bearer ${bearer}` } }, client);

test('a token lists what its account may see, as JSON, with the console filters and a cursor', async () => {
  const h = await harness();
  try {
    const mine = await enrollDevice(h, ACCOUNTS.user.subject, 'lab-one');
    await enrollDevice(h, ACCOUNTS.user.subject, 'lab-two');
    await enrollDevice(h, ACCOUNTS.other.subject, 'lab-other');
    const user = await token(h, 'user');
    const res = await api(h, '/api/v1/devices?q=lab', user.value);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    const body = (await res.json()) as { items: Array<Record<string, unknown>>; next?: string };
    assert.deepEqual(
      body.items.map((d) => d.name),
      ['lab-two', 'lab-one'],
      "scoped to the token's account, newest first",
    );
    const one = body.items.find((d) => d.id === mine.device);
    assert.equal(one?.status, 'active');
    assert.equal(one?.owner, ACCOUNTS.user.subject);
    assert.match(String(one?.enrolled_at), /^\d{4}-\d\d-\d\dT/);
    assert.equal(body.next, undefined);

    const admin = await token(h, 'admin');
    const all = (await (await api(h, '/api/v1/devices?sort=name', admin.value)).json()) as {
      items: Array<{ name: string }>;
    };
    assert.deepEqual(
      all.items.map((d) => d.name),
      ['lab-one', 'lab-other', 'lab-two'],
    );
  } finally {
    await h.close();
  }
});

test('no, a malformed, a revoked or an expired token is a 401 problem; each is refused at once', async () => {
  const h = await harness();
  try {
    const user = await token(h, 'user', '3600');
    for (const bearer of [undefined, 'pdk_short', `pdk_${'A'.repeat(43)}`]) {
      const res = await api(h, '/api/v1/devices', bearer);
      assert.equal(res.status, 401, String(bearer));
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
      const p = (await res.json()) as { status: number; title: string };
      assert.equal(p.status, 401);
      assert.equal(p.title, 'unauthorized');
    }
    assert.equal((await api(h, '/api/v1/devices', user.value)).status, 200);
    h.clock.advance(3_601_000);
    assert.equal((await api(h, '/api/v1/devices', user.value)).status, 401, 'expired');

    const fresh = await token(h, 'user');
    assert.equal((await api(h, '/api/v1/devices', fresh.value)).status, 200);
    const list = await (await h.request('/tokens', { headers: { cookie: fresh.cookie } })).text();
    const revoke = [...list.matchAll(/action="(\/tokens\/a_[A-Za-z0-9_-]+\/revoke)"/g)].map((m) => m[1]);
    for (const path of revoke) await h.request(path ?? '', form({ csrf: fresh.csrf }, fresh.cookie));
    assert.equal((await api(h, '/api/v1/devices', fresh.value)).status, 401, 'revoked');
  } finally {
    await h.close();
  }
});

test('parameters are strict: unknown, repeated or bad ones are a 400 problem naming the field', async () => {
  const h = await harness();
  try {
    const user = await token(h, 'user');
    const cases: Array<[string, string]> = [
      ['/api/v1/devices?colour=red', 'colour'],
      ['/api/v1/devices?status=active&status=stale', 'status'],
      ['/api/v1/devices?status=sleeping', 'status'],
      ['/api/v1/devices?sort=size', 'sort'],
      ['/api/v1/devices?q=ab', 'q'],
      ['/api/v1/devices?before=-1', 'before'],
      ['/api/v1/devices?owner=root', 'owner'],
    ];
    for (const [path, field] of cases) {
      const res = await api(h, path, user.value);
      assert.equal(res.status, 400, path);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      const p = (await res.json()) as { field: string; detail: string };
      assert.equal(p.field, field, path);
      assert.ok(p.detail.length > 0);
    }
  } finally {
    await h.close();
  }
});

test('a use from a new client address is logged and audited once; the token value never is', async () => {
  const h = await harness();
  try {
    const user = await token(h, 'user');
    await api(h, '/api/v1/devices', user.value, '192.0.2.10');
    await api(h, '/api/v1/devices', user.value, '192.0.2.10');
    await api(h, '/api/v1/devices', user.value, '192.0.2.11');
    const used = h.logs.filter((r) => r.event === 'access_token.used');
    assert.deepEqual(
      used.map((r) => r.client),
      ['192.0.2.10', '192.0.2.11'],
    );
    await h.flushAudit();
    const trail = [];
    for await (const batch of h.store.auditBatches({ event: 'access_token.used' }, 10)) trail.push(...batch);
    assert.equal(trail.length, 2);
    assert.ok(!JSON.stringify(h.logs).includes(user.value));
    assert.ok(!JSON.stringify(trail).includes(user.value));
  } finally {
    await h.close();
  }
});
