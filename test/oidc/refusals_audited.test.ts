// Refusals on the routes open without a credential are logged every time but audited at most once
// a minute per client address and event, with their count (docs/contract.md section 23): 2,000
// forged logout tokens from one address are 2,000 log records and one audit row, the next
// minute's row carrying the rest; two addresses are two rows.
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { harness, type Harness } from '../support/harness.ts';

const clock = fakeClock();
let provider: FakeProvider;
let h: Harness;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());
beforeEach(async () => {
  await h?.close();
  h = await harness({
    clock,
    oidc: clientFor(provider, clock),
    config: { clientId: provider.clientId, clientSecret: provider.clientSecret },
  });
});
after(() => h.close());

/** Posts a forged logout token (a JWT whose signature cannot verify) from `client`. */
async function forged(client: string, i: number): Promise<number> {
  const token = `eyJhbGciOiJSUzI1NiJ9.${Buffer.from(JSON.stringify({ jti: `f${i}` })).toString('base64url')}.c2ln`;
  const res = await h.request(
    '/oidc/backchannel-logout',
    {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ logout_token: token }).toString(),
    },
    client,
  );
  await res.arrayBuffer();
  return res.status;
}

async function rejectedRows() {
  await h.flushAudit();
  return (await h.store.auditPage({ event: 'oidc.logout_token_rejected' }, { limit: 100 })).items.reverse();
}

test('2,000 forged logout tokens from one address: 2,000 log records, one audit row; the next minute carries the rest', async () => {
  const statuses = new Set<number>();
  for (let i = 0; i < 2_000; i++) statuses.add(await forged('203.0.113.7', i));
  assert.deepEqual([...statuses], [400]);
  assert.equal(h.logs.filter((r) => r.event === 'oidc.logout_token_rejected').length, 2_000, 'each logged');
  assert.deepEqual(
    (await rejectedRows()).map((r) => [r.client, /count=(\d+)/.exec(r.detail)?.[1]]),
    [['203.0.113.7', '1']],
  );
  clock.advance(60_000);
  await forged('203.0.113.7', 2_000);
  assert.deepEqual(
    (await rejectedRows()).map((r) => /count=(\d+)/.exec(r.detail)?.[1]),
    ['1', '2000'],
    'the 1,999 counted, and the refusal that carried them',
  );
  assert.equal(h.logs.filter((r) => r.event === 'oidc.logout_token_rejected').length, 2_001);
});

test('two addresses are two rows; addresses of one IPv6 /64 are one', async () => {
  for (let i = 0; i < 50; i++) {
    await forged('192.0.2.1', i);
    await forged('192.0.2.2', i);
    await forged(`2001:db8:7:7::${(i + 1).toString(16)}`, i);
  }
  assert.deepEqual(
    (await rejectedRows()).map((r) => [r.client, /count=(\d+)/.exec(r.detail)?.[1]]),
    [
      ['192.0.2.1', '1'],
      ['192.0.2.2', '1'],
      ['2001:db8:7:7::1', '1'],
    ],
  );
  assert.equal(h.logs.filter((r) => r.event === 'oidc.logout_token_rejected').length, 150);
});
