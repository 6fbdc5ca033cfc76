// The privacy ceiling (docs/contract.md section 10): a device enrolled with a token's max_privacy uploads at
// that level or a more private one; above it the upload is 403, logged and audited, nothing stored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { DeviceError, uploadRun } from '../../src/device_client/client.ts';
import type { PrivacyLevel } from '../../src/domain/privacy.ts';
import { harness, type Harness, upload } from '../support/harness.ts';

async function enrollWithCeiling(h: Harness, maxPrivacy: PrivacyLevel) {
  const token = randomToken(32);
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:user-1',
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + 60_000,
    maxPrivacy,
  });
  const res = await h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name: 'capped' }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

const admin = { subject: 'local:admin', admin: true };

test('above the ceiling: 403 with a plain message, logged and audited, nothing stored; at or below it: stored', async () => {
  const h = await harness();
  try {
    const { device, credential } = await enrollWithCeiling(h, 'redacted');
    const refused = await upload(h, credential, 'too-revealing', 'secret=hunter2', 'full');
    assert.equal(refused.status, 403);
    assert.match(refused.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(await refused.text(), /^privacy level above this device's ceiling .*: max_privacy=redacted\n$/);
    assert.equal(await h.store.runVisibleTo(admin, device, 'too-revealing'), undefined, 'nothing stored');
    const record = h.logs.find((r) => r.event === 'run.refused_privacy');
    assert.equal(record?.account, 'oidc:user-1');
    assert.equal(record?.device, device);
    assert.equal(record?.run, 'too-revealing');
    assert.equal(record?.privacy, 'full');
    assert.equal(record?.max_privacy, 'redacted');
    await h.flushAudit();
    const trail = [];
    for await (const batch of h.store.auditBatches({ event: 'run.refused_privacy' }, 10)) trail.push(...batch);
    assert.equal(trail.length, 1);
    assert.equal(trail[0]?.device, device);
    assert.doesNotMatch(JSON.stringify(trail), /hunter2/, 'never the content');

    for (const level of ['redacted', 'minimal'] as const)
      assert.equal((await upload(h, credential, `ok-${level}`, 'x', level)).status, 201, level);
    const page = await h.request(`/devices/${device}`, { headers: { cookie: h.signIn(admin).cookie } });
    assert.match(await page.text(), /redacted: the most revealing level this device may upload at/);
  } finally {
    await h.close();
  }
});

test('a device with the ceiling minimal may upload only minimal runs', async () => {
  const h = await harness();
  try {
    const { credential } = await enrollWithCeiling(h, 'minimal');
    assert.equal((await upload(h, credential, 'a', 'x', 'redacted')).status, 403);
    assert.equal((await upload(h, credential, 'b', 'x', 'full')).status, 403);
    assert.equal((await upload(h, credential, 'c', 'x', 'minimal')).status, 201);
  } finally {
    await h.close();
  }
});

test('the device client refuses above its ceiling before sending anything, with a clear message', async () => {
  const state = {
    server: '127.0.0.1:9',
    controlUrl: 'https://127.0.0.1:9',
    pins: [`sha256/${'A'.repeat(43)}=`],
    device: 'd_x',
    credential: 'c'.repeat(43),
    maxPrivacy: 'redacted' as const,
  };
  await assert.rejects(
    uploadRun(state, { bytes: new TextEncoder().encode('x'), contentType: 'text/plain', privacy: 'full' }),
    (err: unknown) =>
      err instanceof DeviceError &&
      err.message ===
        "privacy level full is above this device's ceiling (redacted): upload at redacted or a more private level",
  );
});
