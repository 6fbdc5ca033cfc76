// The device-facing control API of docs/contract.md section 6.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { enrollDevice, harness, upload, type Harness } from '../support/harness.ts';
import { readAll } from '../support/read_all.ts';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(() => h.close());

const admin = { subject: 'local:admin', admin: true };

async function mint(expiresIn = 60_000) {
  const token = randomToken(32);
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:user-1',
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + expiresIn,
  });
  return token;
}
const enroll = (body: unknown) =>
  h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

test('enroll: 201 with a URL-safe device id and a credential; the device belongs to the token owner', async () => {
  const res = await enroll({ token: await mint(), name: 'bench-1' });
  assert.equal(res.status, 201);
  const { device, credential } = (await res.json()) as { device: string; credential: string };
  assert.match(device, /^[A-Za-z0-9_-]+$/);
  assert.match(credential, /^[A-Za-z0-9_-]{43}$/);
  const stored = await h.store.deviceVisibleTo({ subject: 'oidc:user-1', admin: false }, device);
  assert.equal(stored?.name, 'bench-1');
  assert.equal(
    (await h.store.deviceByCredential(secretHash(credential), h.clock.now()))?.id,
    device,
    'credential stored as its hash',
  );
  assert.equal(await h.store.deviceByCredential(credential, h.clock.now()), undefined, 'and not in clear');
});

test('enroll: an unknown, a used and an expired token, and one no mint could make, get the same 401', async () => {
  const used = await mint();
  assert.equal((await enroll({ token: used })).status, 201);
  const expired = await mint(1000);
  h.clock.advance(1001);
  const answers = await Promise.all([
    enroll({ token: randomToken(32) }),
    enroll({ token: used }),
    enroll({ token: expired }),
    enroll({ token: 'abc+def/' }),
    enroll({ token: 'x'.repeat(600) }),
  ]);
  const bodies = await Promise.all(answers.map((r) => r.text()));
  assert.deepEqual(
    answers.map((r) => r.status),
    [401, 401, 401, 401, 401],
  );
  assert.equal(new Set(bodies).size, 1);
});

test('enroll: concurrent attempts with one token enroll exactly one device', async () => {
  const token = await mint();
  const statuses = (await Promise.all(Array.from({ length: 8 }, () => enroll({ token })))).map((r) => r.status).sort();
  assert.deepEqual(statuses, [201, 401, 401, 401, 401, 401, 401, 401]);
});

for (const [name, body] of [
  ['not JSON', '{token'],
  ['an array', '[]'],
  ['no token', '{}'],
  ['a numeric token', '{"token":5}'],
  ['an empty token', '{"token":""}'],
  ['a bad name', '{"token":"abc","name":"a\\u0000b"}'],
  ['a name with a C1 control', '{"token":"abc","name":"a\\u0085b"}'],
  ['a name with a bidi override', '{"token":"abc","name":"gpj.\\u202eexe"}'],
  ['a name with a zero-width space', '{"token":"abc","name":"ad\\u200bmin"}'],
  ['a name with a Hangul filler', '{"token":"abc","name":"ad\\u3164min"}'],
  ['a name with a combining grapheme joiner', '{"token":"abc","name":"ad\\u034fmin"}'],
  ['a name with a lone surrogate', '{"token":"abc","name":"ad\\ud800min"}'],
  ['an empty name', '{"token":"abc","name":""}'],
] as const) {
  test(`enroll: ${name} → 400`, async () => assert.equal((await enroll(body)).status, 400));
}

test('enroll: a body above 64 KiB → 413', async () => {
  assert.equal((await enroll({ token: 'a'.repeat(70_000) })).status, 413);
});

test('upload: 201, then 200 for the same bytes, 409 for other bytes; stored byte for byte', async () => {
  const { device, credential } = await enrollDevice(h, 'oidc:user-1');
  const bytes = new Uint8Array([0, 1, 2, 255, 10, 60]);
  assert.equal((await upload(h, credential, 'r.1', bytes, 'minimal', 'application/x-run')).status, 201);
  assert.equal((await upload(h, credential, 'r.1', bytes, 'minimal', 'application/x-run')).status, 200);
  assert.equal((await upload(h, credential, 'r.1', new Uint8Array([9]), 'minimal')).status, 409);
  const run = await h.store.runVisibleTo(admin, device, 'r.1');
  assert.deepEqual([...((await readAll(run)) ?? [])], [...bytes]);
  assert.equal(run?.contentType, 'application/x-run');
  assert.equal(run?.privacy, 'minimal');
  assert.equal(run?.size, 6);
  assert.equal(run?.uploadedAt, h.clock.now());
});

test('upload: an unknown or missing credential → 401 with WWW-Authenticate', async () => {
  for (const auth of [`Bearer ${randomToken(32)}`, '', 'Basic abc', 'Bearer ']) {
    const res = await h.control('/v1/runs/r1', {
      method: 'PUT',
      headers: { authorization: auth, 'x-privacy-level': 'full' },
      body: 'x',
    });
    assert.equal(res.status, 401, auth);
    assert.equal(res.headers.get('www-authenticate'), 'Bearer');
  }
});

test('upload: a bad run id or level → 400; above 16 MiB → 413; nothing stored', async () => {
  const { credential } = await enrollDevice(h, 'oidc:user-1');
  assert.equal((await upload(h, credential, 'a%2Fb', 'x')).status, 400);
  assert.equal((await upload(h, credential, 'x'.repeat(129), 'x')).status, 400);
  assert.equal((await upload(h, credential, 'ok', 'x', 'secret')).status, 400);
  assert.equal((await upload(h, credential, 'big', new Uint8Array(16 * 1024 * 1024 + 1))).status, 413);
  assert.equal((await upload(h, credential, 'edge', new Uint8Array(16 * 1024 * 1024))).status, 201);
  const runs = await h.store.runsVisibleTo(admin, { limit: 10 });
  assert.deepEqual(
    runs.items.map((r) => r.id),
    ['edge'],
  );
});

test('upload: every control response carries the security headers', async () => {
  const res = await h.control('/v1/runs/r1', { method: 'PUT', body: 'x' });
  assert.equal(res.headers.get('content-security-policy'), "default-src 'none'");
  assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
});

test('control: a wrong method is 405 with Allow', async () => {
  const res = await h.control('/v1/runs/r1', { method: 'GET' });
  assert.equal(res.status, 405);
  assert.equal(res.headers.get('allow'), 'PUT');
});

/** A control API with its own upload budget, and PUTs whose body can be held open. */
async function budgetedApi(budgetBytes: number, deviceBytes = budgetBytes) {
  const { createControlApp } = await import('../../src/control/app.ts');
  const { DEFAULT_UPLOAD_LIMITS } = await import('../../src/control/upload_budget.ts');
  const { memoryLogger } = await import('../../src/log/logger.ts');
  const uploadLimits = { ...DEFAULT_UPLOAD_LIMITS, totalBytes: budgetBytes, deviceBytes };
  const control = createControlApp({ store: h.store, logger: memoryLogger(), clock: h.clock, uploadLimits });
  const put = (credential: string, id: string, body: string | ReadableStream<Uint8Array>, length: number) =>
    control.request(`http://127.0.0.1/v1/runs/${id}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${credential}`,
        'x-privacy-level': 'full',
        'content-type': 'text/plain',
        'content-length': String(length),
      },
      body,
      duplex: 'half',
    } as RequestInit);
  /** An upload of "12345678" that sends its second half only when `finish` is called. */
  const slow = (credential: string, id: string) => {
    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        controller.enqueue(new TextEncoder().encode('1234'));
        await held;
        controller.enqueue(new TextEncoder().encode('5678'));
        controller.close();
      },
    });
    return { response: put(credential, id, body, 8), finish };
  };
  return { put, slow };
}

test('uploads held in memory are bounded, all devices together: one that does not fit is told 503 with Retry-After', async () => {
  // 10 bytes in all, 8 per device: one device's held upload leaves 2 bytes for every other.
  const { put, slow } = await budgetedApi(10, 8);
  const one = await enrollDevice(h, 'oidc:user-1');
  const other = await enrollDevice(h, 'oidc:user-2');
  const first = slow(one.credential, 'slow');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // Within the other device's own share, past the process's total: the instance is busy (503).
  const refused = await put(other.credential, 'second', '87654321', 8);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.equal(await refused.text(), 'too many uploads in progress on this server; retry shortly\n');
  assert.equal((await put(other.credential, 'small', '12', 2)).status, 201, 'what still fits is taken');
  first.finish();
  assert.equal((await first.response).status, 201);
  assert.equal((await put(other.credential, 'second', '87654321', 8)).status, 201, 'the budget is free again');
  const slowRun = await h.store.runVisibleTo(admin, one.device, 'slow');
  assert.equal(new TextDecoder().decode(await readAll(slowRun)), '12345678');
});

test("bytes past one device's own share are that device's excess: 429 with Retry-After, even when the process is full too", async () => {
  const { put, slow } = await budgetedApi(10, 8);
  const one = await enrollDevice(h, 'oidc:user-1');
  const first = slow(one.credential, 'held');
  await new Promise((resolve) => setTimeout(resolve, 20));
  // 4 held + 7 would pass the device's 8 and the process's 10: the device's own excess first.
  const refused = await put(one.credential, 'more', '1234567', 7);
  assert.equal(refused.status, 429);
  assert.equal(refused.headers.get('retry-after'), '1');
  assert.equal(await refused.text(), 'this device has too many uploads in progress; retry shortly\n');
  first.finish();
  assert.equal((await first.response).status, 201);
  assert.equal(await h.store.runVisibleTo(admin, one.device, 'more'), undefined, 'nothing of it is stored');
  assert.equal((await put(one.credential, 'more', '1234567', 7)).status, 201, 'its share is free again');
});

test('one device holds at most four uploads at once (429 past them); another device is not held up by it', async () => {
  const { put, slow } = await budgetedApi(1024 * 1024);
  const one = await enrollDevice(h, 'oidc:user-1');
  const other = await enrollDevice(h, 'oidc:user-2');
  const held = [1, 2, 3, 4].map((n) => slow(one.credential, `held-${n}`));
  await new Promise((resolve) => setTimeout(resolve, 20));
  const fifth = await put(one.credential, 'fifth', 'x', 1);
  assert.equal(fifth.status, 429, "one device's excess is its own, not the instance's");
  assert.equal(fifth.headers.get('retry-after'), '1');
  assert.equal((await put(other.credential, 'elsewhere', 'x', 1)).status, 201);
  for (const upload of held) upload.finish();
  assert.deepEqual(await Promise.all(held.map(async (upload) => (await upload.response).status)), [201, 201, 201, 201]);
  assert.equal((await put(one.credential, 'fifth', 'x', 1)).status, 201, 'its slots are free again');
});
