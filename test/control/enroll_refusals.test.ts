// POST /v1/enroll answers one 401, word for word, for a token that is unknown, used up, revoked or
// expired (docs/contract.md section 6 and 9): the answer says nothing about which tokens exist.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { harness, type Harness } from '../support/harness.ts';

async function mint(h: Harness, fields: { expiresIn?: number; uses?: number } = {}) {
  const token = randomToken(32);
  const record = await h.store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:user-1',
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + (fields.expiresIn ?? 60_000),
    uses: fields.uses,
  });
  return { token, publicId: record.publicId };
}

const enroll = (h: Harness, token: string) =>
  h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name: 'dev' }),
  });

test('enroll: unknown, used-up, revoked and expired tokens get the same 401 and the same body', async () => {
  const h = await harness();
  try {
    const usedUp = await mint(h, { uses: 2 });
    assert.equal((await enroll(h, usedUp.token)).status, 201);
    assert.equal((await enroll(h, usedUp.token)).status, 201);
    const revoked = await mint(h, { uses: 5 });
    assert.equal((await enroll(h, revoked.token)).status, 201, 'a use taken before the revoke');
    assert.equal(await h.store.revokeEnrollToken(revoked.publicId, h.clock.now()), true);
    const expired = await mint(h, { expiresIn: 1_000 });
    h.clock.advance(1_000);

    const answers: Record<string, { status: number; type: string | null; body: string }> = {};
    for (const [kind, token] of Object.entries({
      unknown: randomToken(32),
      'used up': usedUp.token,
      revoked: revoked.token,
      expired: expired.token,
    })) {
      const res = await enroll(h, token);
      answers[kind] = { status: res.status, type: res.headers.get('content-type'), body: await res.text() };
    }
    const unknown = answers.unknown;
    assert.equal(unknown?.status, 401);
    assert.equal(unknown?.body, 'enrollment token unknown, used up, revoked or expired\n');
    for (const [kind, answer] of Object.entries(answers)) assert.deepEqual(answer, unknown, kind);
    const enrolled = h.logs.filter((r) => r.event === 'device.enrolled');
    assert.equal(enrolled.length, 3, 'no device from a refused token');
  } finally {
    await h.close();
  }
});
