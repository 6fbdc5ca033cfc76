// POST /oidc/backchannel-logout (docs/contract.md section 17) on raw sockets of a live server: it
// needs no session and no CSRF token, so anyone can reach it. Malformed framings, pipelining,
// oversized and forged tokens and a flood of them: nothing answers 500 or shows a stack, nothing
// ends, and the console keeps serving.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { BACKCHANNEL_LOGOUT_EVENT } from '../../src/oidc/logout_token.ts';
import { type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { exchange, type Live, live, statuses } from '../support/live.ts';

let provider: FakeProvider;
let l: Live;
before(async () => {
  provider = await startFakeProvider();
  l = await live({
    PADDOCK_OIDC_ISSUER: provider.issuer,
    PADDOCK_OIDC_CLIENT_ID: provider.clientId,
    PADDOCK_OIDC_CLIENT_SECRET: provider.clientSecret,
  });
});
after(async () => {
  await l.close();
  await provider.close();
});

const PATH = '/oidc/backchannel-logout';
const request = (body: string, headers = '') =>
  `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

function assertClean(raw: string, why: string) {
  assert.ok(!statuses(raw).includes(500), `${why}: ${raw.slice(0, 300)}`);
  assert.doesNotMatch(raw, /at [A-Za-z.]+ \(|node:internal|\.ts:\d+/, `${why}: no stack`);
}

test('malformed framings and bodies: a precise 4xx each, never 500, no stack', async () => {
  const nowS = Math.floor(Date.now() / 1000);
  const forged = await provider.sign(
    {
      iss: provider.issuer,
      aud: provider.clientId,
      iat: nowS,
      exp: nowS + 60,
      jti: 'j',
      sub: 'x',
      events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
    },
    { hmacSecret: new Uint8Array(32), typ: 'logout+jwt' },
  );
  // null: the connection may be closed without an answer (Node's parser refuses the framing).
  const cases: Array<[string, string, number[] | null]> = [
    ['no body', request(''), [400]],
    ['a token of garbage', request('logout_token=%%%'), [400]],
    ['a forged token', request(`logout_token=${forged}`), [400]],
    ['a header of 40 KiB in base64url', request(`logout_token=${'e'.repeat(40_000)}.e30.sig`), [400]],
    ['a body over the form limit', request(`logout_token=${'a'.repeat(70_000)}`), [413]],
    ['JSON instead of a form', request('{"logout_token":"x"}').replace('x-www-form-urlencoded', 'json'), [400]],
    [
      'chunked with a bad chunk size',
      `POST ${PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nlogout_token=x\r\n0\r\n\r\n`,
      null,
    ],
    [
      'pipelined: three forged tokens',
      `${request(`logout_token=${forged}`)}${request('logout_token=a.b.c')}${request('')}`,
      [400, 400, 400],
    ],
  ];
  for (const [why, bytes, expected] of cases) {
    const raw = await exchange(l.port, `${bytes}`, 3_000);
    assertClean(raw, why);
    if (expected === null)
      assert.ok(
        statuses(raw).every((s) => s >= 400 && s < 500),
        why,
      );
    else assert.deepEqual(statuses(raw).slice(0, expected.length), expected, `${why}: ${raw.slice(0, 200)}`);
  }
});

test('a flood of 300 forged tokens ends nothing, and the console keeps answering meanwhile', async () => {
  const { cookie } = await l.signIn();
  const nowS = Math.floor(Date.now() / 1000);
  const token = (i: number) =>
    provider.sign(
      // Signed by a key the provider does not publish: every one must fail the signature check.
      {
        iss: provider.issuer,
        aud: provider.clientId,
        iat: nowS,
        exp: nowS + 60,
        jti: `f${i}`,
        sub: 'local:admin',
        events: { [BACKCHANNEL_LOGOUT_EVENT]: {} },
      },
      { hmacSecret: new Uint8Array(32).fill(i % 251), typ: 'logout+jwt' },
    );
  const flood = Promise.all(
    Array.from({ length: 300 }, async (_, i) => {
      const res = await fetch(`${l.url}${PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ logout_token: await token(i) }),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
  const page = await fetch(`${l.url}/devices`, { headers: { cookie }, redirect: 'manual' });
  assert.equal(page.status, 200, 'the console answers during the flood');
  const codes = await flood;
  assert.deepEqual([...new Set(codes)], [400]);
  assert.equal((await fetch(`${l.url}/devices`, { headers: { cookie }, redirect: 'manual' })).status, 200);
  assert.equal(l.logs.filter((r) => r.event === 'session.ended_by_provider').length, 0);
});
