// Issue 42's two findings against section 15 (docs/contract.md), on a real server: a device's
// retry with X-Collection of a run stored at a more revealing level fulfils nothing (403), and an
// account that created a collection as an admin, then lost admin, sees through the API only the
// targets of its own devices and cancels only theirs. The account loses admin as a sign-in would
// record it, written to the store beside the running server.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { DatabaseSync } from 'node:sqlite';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { live } from '../support/live.ts';

const CAROL = 'oidc:carol';

test('finding: on the real process, a level-mismatched retry fulfils nothing, and a creator who lost admin sees and cancels only its own devices’ requests', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-collection-findings-'));
  const dataDir = join(dir, 'data');
  const enrollToken = randomToken(32);
  const token = newAccessToken();
  const seed = openSqliteStore(dataDir);
  const now = Date.now();
  await seed.createEnrollToken({
    hash: secretHash(enrollToken),
    owner: CAROL,
    createdBy: 'local:admin',
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
  await seed.recordSignIn({ subject: CAROL, display: 'Carol', admin: true, lastSignInAt: now });
  await seed.createAccessToken({
    hash: secretHash(token),
    subject: CAROL,
    admin: true,
    scope: 'write',
    name: 'carol',
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
  await seed.close();

  const l = await live({ PADDOCK_DATA_DIR: dataDir });
  try {
    const enrolled = await fetch(`${l.url}/v1/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: enrollToken, name: 'carols-device' }),
    });
    assert.equal(enrolled.status, 201);
    const mine = (await enrolled.json()) as { device: string; credential: string };
    const theirs = await l.enroll('the-admins-secret-device');
    const carol = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const made = await fetch(`${l.url}/api/v1/collections`, {
      method: 'POST',
      headers: carol,
      body: JSON.stringify({ devices: [mine.device, theirs.device], privacy: 'minimal', reason: 'as an admin' }),
    });
    assert.equal(made.status, 201);
    const { id } = (await made.json()) as { id: string };

    // The level: a full run stored earlier, sent again as minimal for the minimal request.
    const put = (run: string, level: string, request?: string) =>
      fetch(`${l.url}/v1/runs/${run}`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${mine.credential}`,
          'x-privacy-level': level,
          ...(request ? { 'x-collection': request } : {}),
        },
        body: 'the same bytes',
      });
    assert.equal((await put('old-full', 'full')).status, 201);
    const asked = await fetch(`${l.url}/v1/requests`, { headers: { authorization: `Bearer ${mine.credential}` } });
    const [request] = ((await asked.json()) as { requests: Array<{ id: string }> }).requests;
    assert.ok(request);
    const retry = await put('old-full', 'minimal', request.id);
    assert.equal(retry.status, 403, await retry.clone().text());
    const admin = { authorization: `Bearer ${await l.accessToken('watcher')}` };
    const states = async () =>
      Object.fromEntries(
        (
          (await (await fetch(`${l.url}/api/v1/collections/${id}/targets`, { headers: admin })).json()) as {
            items: Array<{ device: string; state: string }>;
          }
        ).items.map((t) => [t.device, t.state]),
      );
    assert.deepEqual(await states(), { [mine.device]: 'delivered', [theirs.device]: 'pending' }, 'nothing fulfilled');

    // Carol signs in again without the admin group: her token acts as a user's from its next request.
    const db = new DatabaseSync(join(dataDir, 'paddock.db'));
    db.prepare('UPDATE accounts SET admin = 0 WHERE subject = ?').run(CAROL);
    db.close();
    const seen = await fetch(`${l.url}/api/v1/collections/${id}/targets`, { headers: carol });
    assert.equal(seen.status, 200);
    const text = await seen.text();
    assert.ok(text.includes(mine.device), 'her own device');
    assert.ok(!text.includes(theirs.device) && !text.includes('the-admins-secret-device'), text);
    const one = (await (await fetch(`${l.url}/api/v1/collections/${id}`, { headers: carol })).json()) as {
      counts: Record<string, number>;
    };
    assert.deepEqual([one.counts.delivered, one.counts.pending], [1, 0], 'counted in her scope');
    const cancelled = await fetch(`${l.url}/api/v1/collections/${id}/cancel`, { method: 'POST', headers: carol });
    assert.equal(cancelled.status, 200);
    assert.deepEqual(await states(), { [mine.device]: 'cancelled', [theirs.device]: 'pending' });
    assert.ok(!l.logs.some((r) => r.level === 'error'), 'no error');
  } finally {
    await l.close();
    await rm(dir, { recursive: true, force: true });
  }
});
