// The upload path's credential cache: one store lookup a minute per credential, never a revoked device,
// and the credential a rotation replaced no longer than its overlap (docs/contract.md section 16).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { credentialCache } from '../../src/control/credential_cache.ts';
import type { CredentialDevice } from '../../src/domain/credentials.ts';

function fixture() {
  let now = 1_000;
  const lookups: string[] = [];
  const devices = new Map<string, CredentialDevice>();
  const store = {
    async deviceByCredential(hash: string) {
      lookups.push(hash);
      return devices.get(hash);
    },
  };
  const device = (id: string, revokedAt: number | null = null, previousUntil: number | null = null) =>
    devices.set(`h-${id}`, {
      id,
      name: id,
      owner: 'oidc:ann',
      enrolledAt: 0,
      lastSeenAt: null,
      lastUploadAt: null,
      revokedAt,
      enrolledBy: 'oidc:admin',
      enrollNote: '',
      maxPrivacy: 'full',
      pendingSince: null,
      pendingReason: null,
      enrolledFrom: null,
      credentialHash: `h-${id}`,
      credential: { issuedAt: 0, rotatedAt: null, rotationAskedAt: null, previousUntil, expiredAt: null },
      superseded: previousUntil !== null,
      version: 0,
    });
  const cache = credentialCache(store);
  return {
    cache: { lookup: (hash: string) => cache.lookup(hash, now), forget: cache.forget },
    lookups,
    device,
    advance: (ms: number) => (now += ms),
  };
}

test('credential cache: a credential is looked up once a minute; a forgotten one at once', async () => {
  const { cache, lookups, device, advance } = fixture();
  device('d1');
  assert.equal((await cache.lookup('h-d1'))?.id, 'd1');
  assert.equal((await cache.lookup('h-d1'))?.id, 'd1');
  assert.equal(lookups.length, 1);
  advance(59_999);
  await cache.lookup('h-d1');
  assert.equal(lookups.length, 1);
  advance(1);
  await cache.lookup('h-d1');
  assert.equal(lookups.length, 2, 'asked again after a minute');
  cache.forget('h-d1');
  await cache.lookup('h-d1');
  assert.equal(lookups.length, 3, 'asked again once forgotten');
});

test('credential cache: unknown and revoked credentials are never remembered', async () => {
  const { cache, lookups, device } = fixture();
  assert.equal(await cache.lookup('h-nobody'), undefined);
  assert.equal(await cache.lookup('h-nobody'), undefined);
  device('gone', 5);
  assert.equal((await cache.lookup('h-gone'))?.revokedAt, 5);
  assert.equal((await cache.lookup('h-gone'))?.revokedAt, 5);
  assert.equal(lookups.length, 4);
});

test('credential cache: the credential a rotation replaced is remembered no longer than its overlap', async () => {
  const { cache, lookups, device, advance } = fixture();
  device('old', null, 31_000);
  assert.equal((await cache.lookup('h-old'))?.id, 'old');
  advance(29_999);
  assert.equal((await cache.lookup('h-old'))?.id, 'old');
  assert.equal(lookups.length, 1, 'remembered within the overlap');
  advance(1);
  await cache.lookup('h-old');
  assert.equal(lookups.length, 2, 'asked again once the overlap is over, well within the minute');
});
