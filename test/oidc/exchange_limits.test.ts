// The Limits of the specification for the OIDC code exchange: the token response is read up to
// exactly 1 MiB (1048576 bytes: a body of that size is accepted, one byte more is a 502 with a
// `login.oidc.exchange_failed` record), and the call is bounded by a timeout (injected short here;
// the default of 15 s is the constant that createOidcClient falls back to) that covers the
// connection, the headers and a body that stalls half-way.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { TOKEN_READ_CAP, TOKEN_TIMEOUT_MS } from '../../src/oidc/exchange.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { harness } from '../support/harness.ts';

const MiB = 1_048_576;
const clock = fakeClock();
let provider: FakeProvider;
/** Answers 200 with the start of a JSON body, then never sends the rest. */
let stalling: Server;
let stallingUrl = '';

before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
  stalling = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"token_type":"Bearer","id_token":"');
  });
  await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve));
  stallingUrl = `http://127.0.0.1:${(stalling.address() as AddressInfo).port}/token`;
});
after(async () => {
  stalling.closeAllConnections();
  stalling.close();
  await provider.close();
});

type TokenRoute = (input: Parameters<typeof fetch>[0], init?: RequestInit) => Promise<Response>;

/** Exchanges the real provider's answer for one padded to exactly `bytes`, streamed in 64 KiB chunks. */
function padTo(bytes: number): TokenRoute {
  return async (input, init) => {
    const real = (await (await fetch(input, init)).json()) as { id_token: string };
    const head = `{"token_type":"Bearer","id_token":${JSON.stringify(real.id_token)},"padding":"`;
    const tail = '"}';
    const body = Buffer.from(head + 'x'.repeat(bytes - head.length - tail.length) + tail);
    assert.equal(body.byteLength, bytes);
    assert.ok(JSON.parse(body.toString()), 'the padded body is valid JSON');
    let offset = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (offset >= body.byteLength) return controller.close();
        controller.enqueue(body.subarray(offset, (offset += 64 * 1024)));
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'application/json' } });
  };
}

/** Signs in through the flow with the token endpoint's answer replaced by `route`. */
async function signIn(route: TokenRoute | undefined, tokenTimeoutMs = 2_000) {
  const h = await harness({
    clock,
    oidc: clientFor(provider, clock, {
      tokenTimeoutMs,
      fetch: (input, init) => {
        const url = new URL(input instanceof Request ? input.url : String(input));
        return route && url.pathname === '/token' ? route(input, init) : fetch(input, init);
      },
    }),
    config: { clientId: provider.clientId, clientSecret: provider.clientSecret },
  });
  const start = await h.request('/auth/start');
  assert.equal(start.status, 303);
  const cookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const url = new URL(start.headers.get('location') ?? '');
  const code = provider.issueCode({ codeChallenge: url.searchParams.get('code_challenge') ?? '' });
  const began = performance.now();
  const res = await h.request(
    `/admin/callback?${new URLSearchParams({ state: url.searchParams.get('state') ?? '', code })}`,
    { headers: { cookie } },
    '198.51.100.40',
  );
  const ms = performance.now() - began;
  const text = await res.text();
  await h.close();
  const failures = h.logs.filter((r) => r.event === 'login.oidc.exchange_failed');
  const session = res.headers.getSetCookie().some((c) => c.startsWith('service_admin='));
  return { status: res.status, text, ms, failures, session, logs: h.logs };
}

test('the limits are the specification’s: 15 s and 1 MiB', () => {
  assert.equal(TOKEN_TIMEOUT_MS, 15_000);
  assert.equal(TOKEN_READ_CAP, MiB);
});

test('a token response of exactly 1048576 bytes is read whole and signs in', async () => {
  const r = await signIn(padTo(MiB));
  assert.equal(r.status, 303, r.text);
  assert.ok(r.session);
  assert.deepEqual(r.failures, []);
});

test('a token response of 1048577 bytes: 502, no session, logged with client and error', async () => {
  const r = await signIn(padTo(MiB + 1));
  assert.equal(r.status, 502, r.text);
  assert.match(r.text, /could not complete sign-in/);
  assert.ok(!r.session);
  assert.equal(r.failures.length, 1, JSON.stringify(r.logs));
  assert.equal(r.failures[0]?.client, '198.51.100.40');
  assert.match(String(r.failures[0]?.error), /1048576/, 'the error names the cap');
});

test('a token endpoint that never answers: 502 after the timeout, logged', async () => {
  provider.behaviour.token = 'hang';
  try {
    const r = await signIn(undefined, 300);
    assert.equal(r.status, 502, r.text);
    assert.ok(!r.session);
    assert.equal(r.failures.length, 1);
    assert.ok(r.ms >= 250, `answered after ${r.ms} ms, before the timeout`);
    assert.ok(r.ms < 5_000, `answered after ${r.ms} ms`);
  } finally {
    provider.behaviour.token = 'ok';
  }
});

test('a token response whose body stalls after the headers: 502 after the timeout', async () => {
  const r = await signIn((_input, init) => fetch(stallingUrl, init), 300);
  assert.equal(r.status, 502, r.text);
  assert.equal(r.failures.length, 1);
  assert.ok(r.ms >= 250 && r.ms < 5_000, `answered after ${r.ms} ms`);
});
