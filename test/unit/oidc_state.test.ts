// The sign-in state (session/oidc_state.ts; docs/contract.md section 23): in the specification's
// form (32 bytes, URL-safe base64), it proves by itself that this server issued it within the
// last 600 s, under the session keys, rotation included.
import assert from 'node:assert/strict';
import { createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { test } from 'node:test';
import {
  OIDC_STATE_CLOCK_SKEW_MS,
  OIDC_STATE_LIFE_MS,
  oidcStateCodec,
  oidcStateKeys,
} from '../../src/session/oidc_state.ts';

const NOW = Date.UTC(2026, 10, 22, 12, 0, 0);
const KEEP = OIDC_STATE_LIFE_MS + OIDC_STATE_CLOCK_SKEW_MS;

test('a state is 32 bytes in URL-safe base64, different each time, good until 600 s after its issue', () => {
  const codec = oidcStateCodec([randomBytes(32)]);
  const state = codec.issue(NOW);
  assert.match(state, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(Buffer.from(state, 'base64url').length, 32);
  const others = new Set(Array.from({ length: 1_000 }, () => codec.issue(NOW)));
  assert.equal(others.size, 1_000);
  assert.ok(!others.has(state));
  assert.equal(codec.verify(state, NOW), NOW + KEEP, 'kept until its 600 s and the clocks’ 60 s');
  assert.equal(codec.verify(state, NOW + OIDC_STATE_LIFE_MS - 1), NOW + KEEP);
  assert.equal(codec.verify(state, NOW + OIDC_STATE_LIFE_MS), undefined, 'at 600 s');
  assert.equal(codec.verify(state, NOW + 10 * OIDC_STATE_LIFE_MS), undefined);
});

test('the issue time is not readable: states of one millisecond share no prefix', () => {
  const codec = oidcStateCodec([randomBytes(32)]);
  const firstBytes = new Set(
    Array.from({ length: 64 }, () => Buffer.from(codec.issue(NOW), 'base64url').readUIntBE(0, 6)),
  );
  assert.ok(firstBytes.size > 60, `${firstBytes.size} distinct first 6 bytes of 64`);
});

test('a state from another instance whose clock is ahead is taken up to 60 s, not further', () => {
  const codec = oidcStateCodec([randomBytes(32)]);
  const state = codec.issue(NOW);
  assert.equal(codec.verify(state, NOW - OIDC_STATE_CLOCK_SKEW_MS), NOW + KEEP);
  assert.equal(codec.verify(state, NOW - OIDC_STATE_CLOCK_SKEW_MS - 1), undefined);
});

test('any change to a state, any other key, any other spelling: refused', () => {
  const codec = oidcStateCodec([randomBytes(32)]);
  const state = codec.issue(NOW);
  const bytes = Buffer.from(state, 'base64url');
  for (let at = 0; at < bytes.length; at++) {
    for (const bit of [0x01, 0x80]) {
      const changed = Buffer.from(bytes);
      changed[at] = (changed[at] ?? 0) ^ bit;
      assert.equal(codec.verify(changed.toString('base64url'), NOW), undefined, `byte ${at}, bit ${bit}`);
    }
  }
  assert.equal(oidcStateCodec([randomBytes(32)]).verify(state, NOW), undefined, 'other keys');
  // The last character's two unused bits set: the same bytes, spelled otherwise.
  const last = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  const other = `${state.slice(0, -1)}${last[last.indexOf(state.at(-1) ?? 'A') ^ 1]}`;
  assert.deepEqual(Buffer.from(other, 'base64url'), bytes);
  for (const spelled of [other, `${state}=`, state.slice(0, -1), `${state}AAAA`, `${state.slice(0, -1)}+`, '', 'a.b']) {
    assert.equal(codec.verify(spelled, NOW), undefined, spelled);
  }
});

test('the construction: an AES-256 block of the issue time and 10 random bytes, then 16 bytes of its HMAC-SHA-256', () => {
  const key = randomBytes(32);
  const state = Buffer.from(oidcStateCodec([key]).issue(NOW), 'base64url');
  const { encryption, mac } = oidcStateKeys(key);
  const block = state.subarray(0, 16);
  const decipher = createDecipheriv('aes-256-ecb', encryption, null).setAutoPadding(false);
  const plain = Buffer.concat([decipher.update(block), decipher.final()]);
  assert.equal(plain.readUIntBE(0, 6), NOW);
  const tag = createHmac('sha256', mac).update('paddock oidc state v1\0').update(block).digest();
  assert.deepEqual(state.subarray(16), tag.subarray(0, 16));
  // A MAC under the session key itself, not the key derived from it, is refused.
  const underSessionKey = createHmac('sha256', key).update('paddock oidc state v1\0').update(block).digest();
  const forged = Buffer.concat([block, underSessionKey.subarray(0, 16)]).toString('base64url');
  assert.equal(oidcStateCodec([key]).verify(forged, NOW), undefined);
});

test('rotation: issued under the first key, taken under any', () => {
  const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
  const before = oidcStateCodec([oldKey]);
  const rotated = oidcStateCodec([newKey, oldKey]);
  const after = oidcStateCodec([newKey]);
  assert.equal(rotated.verify(before.issue(NOW), NOW), NOW + KEEP, 'a state issued before the rotation');
  const issued = rotated.issue(NOW);
  assert.equal(after.verify(issued, NOW), NOW + KEEP, 'issued under the new key');
  assert.equal(before.verify(issued, NOW), undefined);
  assert.throws(() => oidcStateCodec([]), TypeError);
});
