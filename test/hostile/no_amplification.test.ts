// No amplification (docs/contract.md section 23) on a real server, with a real identity provider
// (oidc-provider) that counts its token-endpoint requests. Forged callbacks, each with a state
// cookie that matches its state, cost the provider nothing, and a person still signs in; forged
// logout tokens are each logged but audited once a minute with their count, the next minute's row
// written by the trail's own timer and the minute under way by the stop. The console answers
// throughout.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { after, before, test } from 'node:test';
import type { Clock } from '../../src/clock.ts';
import { type StartedProvider, startProvider } from '../e2e/provider.ts';
import { ProviderUser } from '../e2e/provider_user.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { type Live, live } from '../support/live.ts';
import { freePort } from '../support/tls_fixture.ts';

/** The system's time, moved on by `skip` (the provider keeps the real one; its tokens allow for it). */
let skewMs = 0;
const clock: Clock = {
  now: () => Date.now() + skewMs,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

let provider: StartedProvider;
let l: Live;
let base = '';
before(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  provider = await startProvider(await freePort(), `${base}/admin/callback`);
  l = await live(
    {
      PADDOCK_LISTEN: `127.0.0.1:${port}`,
      PADDOCK_BASE_URL: base,
      PADDOCK_OIDC_ISSUER: provider.issuer,
      PADDOCK_OIDC_CLIENT_ID: 'paddock-e2e',
      PADDOCK_OIDC_CLIENT_SECRET: 'e2e-client-secret-0123456789',
    },
    { clock },
  );
});
let closed = false;
after(async () => {
  if (!closed) await l?.close();
  provider?.close();
});

const b64 = (n: number) => randomBytes(n).toString('base64url');

/** Runs `n` requests, `width` at a time; their statuses, counted. */
async function flood(n: number, width: number, one: (i: number) => Promise<Response>): Promise<Map<number, number>> {
  const counted = new Map<number, number>();
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      for (let i = next++; i < n; i = next++) {
        const res = await one(i);
        await res.arrayBuffer();
        counted.set(res.status, (counted.get(res.status) ?? 0) + 1);
      }
    }),
  );
  return counted;
}

test('1,000 forged callbacks: 400 each, 0 token requests at the provider; a person then signs in with 1', async () => {
  const { cookie } = await l.signIn();
  const before = provider.tokenRequests();
  const forged = flood(1_000, 50, () => {
    const state = b64(32);
    return fetch(`${base}/admin/callback?state=${state}&code=${b64(32)}`, {
      headers: { cookie: `service_oidc=${state}.${b64(32)}` },
      redirect: 'manual',
    });
  });
  const page = await fetch(`${base}/devices`, { headers: { cookie }, redirect: 'manual' });
  assert.equal(page.status, 200, 'the console answers during the flood');
  await page.arrayBuffer();
  assert.deepEqual([...(await forged)], [[400, 1_000]]);
  assert.equal(provider.tokenRequests() - before, 0, 'nothing was posted with the client secret');

  const alice = await new ProviderUser().signIn(base, 'alice');
  assert.match(alice, /^service_admin=/);
  assert.equal(provider.tokenRequests() - before, 1, 'the genuine sign-in, and only it');
});

test('2,000 forged logout tokens: 2,000 log records, one audit row, and a minute later one carrying the rest', async () => {
  const token = await l.accessToken('auditor');
  const logged = () => l.logs.filter((r) => r.event === 'oidc.logout_token_rejected').length;
  const rows = async () => {
    const res = await fetch(`${base}/api/v1/audit?event=oidc.logout_token_rejected`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const { items } = (await res.json()) as { items: Array<{ client: string; detail: string }> };
    return items.reverse().map((r) => [r.client, /count=(\d+)/.exec(r.detail)?.[1]]);
  };
  const statuses = await flood(2_000, 50, (i) =>
    fetch(`${base}/oidc/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `logout_token=eyJhbGciOiJSUzI1NiJ9.${Buffer.from(`{"jti":"f${i}"}`).toString('base64url')}.c2ln`,
    }),
  );
  assert.deepEqual([...statuses], [[400, 2_000]]);
  assert.equal(logged(), 2_000, 'each refusal logged');
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.deepEqual(await rows(), [['127.0.0.1', '1']], 'one row, at once');

  skewMs += 60_000;
  const deadline = Date.now() + 15_000;
  while ((await rows()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 250));
  assert.deepEqual(
    await rows(),
    [
      ['127.0.0.1', '1'],
      ['127.0.0.1', '1999'],
    ],
    "the trail's timer wrote the minute's row",
  );
});

test('a stop writes the refusals counted and not yet audited', async () => {
  for (let i = 0; i < 5; i++) {
    const res = await fetch(`${base}/oidc/backchannel-logout`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'logout_token=a.b.c',
    });
    assert.equal(res.status, 400);
    await res.arrayBuffer();
  }
  closed = true;
  await l.server.close();
  const store = openSqliteStore(l.dataDir);
  try {
    const rows = (await store.auditPage({ event: 'oidc.logout_token_rejected' }, { limit: 10 })).items;
    assert.deepEqual(
      rows.map((r) => /count=(\d+)/.exec(r.detail)?.[1]),
      ['5', '1999', '1'],
      'the five of the minute under way, written at the stop',
    );
  } finally {
    await store.close();
    await rm(dirname(l.dataDir), { recursive: true, force: true });
  }
});
