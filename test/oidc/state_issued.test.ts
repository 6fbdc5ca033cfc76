// No amplification (docs/contract.md section 23): /admin/callback calls the provider's token
// endpoint only for a state this server issued within the last 600 s (its MAC under the session
// keys, its issue time) and has not seen come back (kept in the store, so any instance checks it),
// and /auth/start, open to anyone, writes nothing. Against a fake provider that signs real tokens
// and records every request, so its token-endpoint calls are counted; the clock is injected.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, beforeEach, describe, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { harness, type Harness } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

/** An instance; instances sharing a store share the session keys too, as `paddock serve` makes them. */
const instance = (store?: Store, sessionKeys?: Buffer[]) =>
  harness({
    clock,
    ...(store ? { store } : {}),
    oidc: clientFor(provider, clock),
    config: {
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      ...(sessionKeys ? { sessionKeys } : {}),
    },
  });

const tokenCalls = () => provider.requests.filter((r) => r.path === '/token').length;

/** GET /auth/start on `h`: the state cookie, the state and the code challenge. */
async function start(h: Harness) {
  const res = await h.request('/auth/start');
  assert.equal(res.status, 303, await res.clone().text());
  const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const url = new URL(res.headers.get('location') ?? '');
  return {
    cookie,
    state: url.searchParams.get('state') ?? '',
    challenge: url.searchParams.get('code_challenge') ?? '',
  };
}

/** The provider's callback to `h`, with a code it issued for the challenge, unless `code` is given. */
async function callback(h: Harness, s: { cookie: string; state: string; challenge: string }, code?: string) {
  const res = await h.request(
    `/admin/callback?${new URLSearchParams({ state: s.state, code: code ?? provider.issueCode({ codeChallenge: s.challenge }) })}`,
    { headers: { cookie: s.cookie } },
    '198.51.100.20',
  );
  return { status: res.status, text: (await res.text()).trimEnd() };
}

const b64 = (n: number) => randomBytes(n).toString('base64url');
const MISMATCH = { status: 400, text: 'state mismatch: start the sign-in again' };

/** `s` with its state replaced by `state`, the cookie too: the cookie check passes, as a forger's would. */
function withState(s: { cookie: string; state: string; challenge: string }, state: string) {
  return { ...s, cookie: s.cookie.replace(`=${s.state}.`, `=${state}.`), state };
}

/** `state` with one bit of its byte at `at` flipped, still canonical base64url. */
function flipped(state: string, at: number): string {
  const bytes = Buffer.from(state, 'base64url');
  bytes[at] = (bytes[at] ?? 0) ^ 1;
  return bytes.toString('base64url');
}

describe('the callback calls the token endpoint only for a state issued here', () => {
  let h: Harness;
  beforeEach(async () => {
    await h?.close();
    h = await instance();
    provider.requests.length = 0;
  });
  after(() => h.close());

  test('1,000 forged callbacks, each with a cookie that matches its state: 400 state mismatch, 0 token calls', async () => {
    const answers = new Map<string, number>();
    for (let i = 0; i < 1_000; i++) {
      const state = b64(32);
      const { status, text } = await callback(
        h,
        { cookie: `service_oidc=${state}.${b64(32)}`, state, challenge: '' },
        'c',
      );
      answers.set(`${status} ${text}`, (answers.get(`${status} ${text}`) ?? 0) + 1);
    }
    assert.deepEqual([...answers], [['400 state mismatch: start the sign-in again', 1_000]]);
    assert.equal(tokenCalls(), 0, 'nothing was sent to the provider');
    assert.equal(
      h.logs.filter((r) => r.event === 'login.oidc.exchange_failed').length,
      0,
      'and nothing failed there to log',
    );
  });

  test('a genuine flow still signs in, with one token call', async () => {
    const s = await start(h);
    const { status } = await callback(h, s);
    assert.equal(status, 303);
    assert.equal(tokenCalls(), 1);
    assert.ok(h.logs.some((r) => r.event === 'login.oidc.succeeded'));
  });

  test('a replayed state is refused without a token call, also with a fresh code; so is a state started elsewhere', async () => {
    const s = await start(h);
    assert.equal((await callback(h, s)).status, 303);
    const replay = await callback(h, s);
    assert.deepEqual(replay, { status: 400, text: 'state mismatch: start the sign-in again' });
    assert.equal(tokenCalls(), 1);
    // A state a provider could have been given by another Paddock (or an attacker's own
    // /auth/start on another server): never issued by this one.
    const other = await instance();
    const elsewhere = await start(other);
    await other.close();
    assert.equal((await callback(h, elsewhere)).status, 400);
    assert.equal(tokenCalls(), 1);
  });

  test('a state is good for 600 s: at 599 s it signs in, past 600 s it is refused without a token call', async () => {
    const young = await start(h);
    clock.advance(599_000);
    assert.equal((await callback(h, young)).status, 303);
    const old = await start(h);
    clock.advance(600_000);
    assert.deepEqual(await callback(h, old), { status: 400, text: 'state mismatch: start the sign-in again' });
    assert.equal(tokenCalls(), 1);
  });

  test('of two callbacks with one state at once, one signs in and the other is refused: one token call', async () => {
    const s = await start(h);
    const code = provider.issueCode({ codeChallenge: s.challenge });
    const both = await Promise.all([callback(h, s, code), callback(h, s, code)]);
    assert.deepEqual(both.map((r) => r.status).sort(), [303, 400]);
    assert.equal(tokenCalls(), 1);
  });

  test('a state changed anywhere, or with the MAC of other keys, is refused without a token call', async () => {
    const s = await start(h);
    assert.equal(Buffer.from(s.state, 'base64url').length, 32);
    // The encrypted block (issue time and nonce), the MAC, each at its first and last byte.
    for (const at of [0, 15, 16, 31]) {
      const forged = withState(s, flipped(s.state, at));
      assert.deepEqual(await callback(h, forged), MISMATCH, `byte ${at}`);
    }
    // The genuine state, with the MAC of another server's keys.
    const other = await instance();
    const elsewhere = await start(other);
    await other.close();
    const spliced = Buffer.concat([
      Buffer.from(s.state, 'base64url').subarray(0, 16),
      Buffer.from(elsewhere.state, 'base64url').subarray(16),
    ]).toString('base64url');
    assert.deepEqual(await callback(h, withState(s, spliced)), MISMATCH);
    // Truncated, lengthened, and spelled otherwise (padding).
    for (const state of [s.state.slice(0, -1), `${s.state}A`, `${s.state}==`]) {
      assert.deepEqual(await callback(h, withState(s, state)), MISMATCH, state);
    }
    assert.equal(tokenCalls(), 0);
    assert.equal((await callback(h, s)).status, 303, 'the genuine state was not used up by them');
    assert.equal(tokenCalls(), 1);
    // Its replay spelled otherwise (the last character's two unused bits): the same bytes, refused.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    const respelled = `${s.state.slice(0, -1)}${alphabet[alphabet.indexOf(s.state.at(-1) ?? 'A') ^ 1]}`;
    assert.deepEqual(Buffer.from(respelled, 'base64url'), Buffer.from(s.state, 'base64url'));
    assert.deepEqual(await callback(h, withState(s, respelled)), MISMATCH);
    assert.equal(tokenCalls(), 1);
  });

  test('session key rotation: a state issued under the key now second is taken; new ones are issued under the first', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const before = await instance(undefined, [oldKey]);
    const rotated = await instance(undefined, [newKey, oldKey]);
    const onlyNew = await instance(undefined, [newKey]);
    try {
      assert.equal((await callback(rotated, await start(before))).status, 303, 'issued before the rotation');
      const issued = await start(rotated);
      assert.deepEqual(await callback(before, issued), MISMATCH, 'not under the old key');
      assert.equal((await callback(onlyNew, issued)).status, 303, 'under the new one');
      assert.equal(tokenCalls(), 2);
    } finally {
      await Promise.all([before.close(), rotated.close(), onlyNew.close()]);
    }
  });
});

const available = await postgresAvailable();
describe('across instances sharing PostgreSQL', { skip: !available && SKIP_REASON }, () => {
  let a: Harness;
  let b: Harness;
  before(async () => {
    const schema = freshSchema();
    const keys = [randomBytes(32)];
    a = await instance(await openPostgresStore(PG_URL, { schema }), keys);
    b = await instance(await openPostgresStore(PG_URL, { schema }), keys);
  });
  after(async () => {
    await a?.close();
    await b?.close();
    await dropSchemas();
  });

  test('a state issued on A is accepted on B, once: the replay on A is refused', async () => {
    provider.requests.length = 0;
    const s = await start(a);
    assert.equal((await callback(b, s)).status, 303, 'B signs in a sign-in A started');
    assert.equal((await callback(a, s)).status, 400, 'and A has seen it come back');
    assert.equal(tokenCalls(), 1);
  });

  test('a callback racing on A and B with one state: one signs in, one token call', async () => {
    provider.requests.length = 0;
    for (let round = 0; round < 10; round++) {
      const s = await start(round % 2 ? a : b);
      const code = provider.issueCode({ codeChallenge: s.challenge });
      const all = await Promise.all([a, b, a, b].map((h) => callback(h, s, code)));
      assert.deepEqual(all.map((r) => r.status).sort(), [303, 400, 400, 400], `round ${round}`);
    }
    assert.equal(tokenCalls(), 10);
  });

  test('an instance with other session keys: its states are refused by A and B', async () => {
    provider.requests.length = 0;
    const other = await instance();
    const s = await start(other);
    await other.close();
    assert.deepEqual(await callback(a, s), MISMATCH);
    assert.deepEqual(await callback(b, s), MISMATCH);
    assert.equal(tokenCalls(), 0);
  });

  test('1,000 forged callbacks split over A and B: 0 token calls', async () => {
    provider.requests.length = 0;
    for (let i = 0; i < 1_000; i++) {
      const state = b64(32);
      const s = { cookie: `service_oidc=${state}.${b64(32)}`, state, challenge: '' };
      assert.equal((await callback(i % 2 ? a : b, s, 'c')).status, 400);
    }
    assert.equal(tokenCalls(), 0);
  });
});

describe('/auth/start writes nothing; only a genuine state that comes back is written', () => {
  let dir: string;
  let h: Harness;
  let db: DatabaseSync;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'paddock-state-'));
    h = await instance(openSqliteStore(dir));
    db = new DatabaseSync(join(dir, 'paddock.db'), { readOnly: true });
  });
  after(async () => {
    db?.close();
    await h?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  const rows = () => Number((db.prepare('SELECT count(*) AS n FROM oidc_states').get() as { n: number }).n);
  /** Changes with every commit by another connection (the store's): https://sqlite.org/pragma.html#pragma_data_version */
  const version = () => Number((db.prepare('PRAGMA data_version').get() as { data_version: number }).data_version);

  test('1,000 requests to /auth/start: 1,000 different states, and nothing committed to the store', async () => {
    const at = version();
    const states = new Set<string>();
    for (let i = 0; i < 1_000; i++) states.add((await start(h)).state);
    assert.equal(states.size, 1_000);
    assert.equal(rows(), 0, 'no row');
    assert.equal(version(), at, 'no commit at all');
  });

  test('forged, altered, old and replayed states write no row; a genuine one that comes back writes one', async () => {
    provider.requests.length = 0;
    for (let i = 0; i < 100; i++) {
      const state = b64(32);
      assert.deepEqual(
        await callback(h, { cookie: `service_oidc=${state}.${b64(32)}`, state, challenge: '' }, 'c'),
        MISMATCH,
      );
    }
    const s = await start(h);
    assert.deepEqual(await callback(h, withState(s, flipped(s.state, 20))), MISMATCH);
    const old = await start(h);
    clock.advance(600_000);
    assert.deepEqual(await callback(h, old), MISMATCH);
    assert.equal(rows(), 0);
    const genuine = await start(h);
    assert.equal((await callback(h, genuine)).status, 303);
    assert.equal(rows(), 1, 'the state that came back');
    assert.deepEqual(await callback(h, genuine), MISMATCH, 'replayed');
    assert.equal(rows(), 1);
    assert.equal(tokenCalls(), 1);
  });
});
