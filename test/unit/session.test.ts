import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sessionCodec } from '../../src/session/session.ts';

const now = 1_800_000_000_000;
const key = randomBytes(32);
const codec = sessionCodec([key], 3600);
const session = codec.newSession({ subject: 'oidc:abc', display: 'Ann', admin: false }, now);

test('a session survives encode and decode until it expires', () => {
  const value = codec.encode(session);
  assert.deepEqual(codec.decode(value, now + 1000), session);
  assert.equal(session.expires, now + 3_600_000);
  assert.equal(codec.decode(value, session.expires), undefined);
});

test('a tampered, truncated or foreign-key cookie is no session', () => {
  const value = codec.encode(session);
  const [payload, mac] = value.split('.') as [string, string];
  const forged = Buffer.from(JSON.stringify([1, session.id, 'local:admin', 'x', true, session.expires])).toString(
    'base64url',
  );
  assert.equal(codec.decode(`${forged}.${mac}`, now), undefined);
  const flipped = `${mac[0] === 'A' ? 'B' : 'A'}${mac.slice(1)}`;
  assert.equal(codec.decode(`${payload}.${flipped}`, now), undefined);
  const lastBits = `${mac.slice(0, -1)}${String.fromCharCode(mac.charCodeAt(42) ^ 1)}`;
  assert.equal(codec.decode(`${payload}.${lastBits}`, now), undefined, 'non-canonical or changed last character');
  assert.equal(codec.decode(payload, now), undefined);
  assert.equal(codec.decode('', now), undefined);
  assert.equal(codec.decode(`${payload}.${mac}.x`, now), undefined);
  assert.equal(sessionCodec([randomBytes(32)], 3600).decode(value, now), undefined);
});

test('rotation: a cookie signed with an older key still verifies while that key is listed', () => {
  const rotated = sessionCodec([randomBytes(32), key], 3600);
  assert.deepEqual(rotated.decode(codec.encode(session), now), session);
});

test('rotation: a CSRF token rendered under an older key stays valid while that key is listed, and only then', () => {
  const rotated = sessionCodec([randomBytes(32), key], 3600);
  const before = codec.csrfToken(session);
  assert.equal(rotated.csrfValid(session, before), true);
  assert.notEqual(rotated.csrfToken(session), before, 'new forms carry a token under the new key');
  assert.equal(rotated.csrfValid(session, rotated.csrfToken(session)), true);
  assert.equal(sessionCodec([randomBytes(32)], 3600).csrfValid(session, before), false, 'old key removed');
  const lastBits = `${before.slice(0, -1)}${String.fromCharCode(before.charCodeAt(42) ^ 1)}`;
  assert.equal(rotated.csrfValid(session, lastBits), false, 'non-canonical last character');
});

test('the CSRF token is URL-safe base64 without padding, bound to id, subject and expiry', () => {
  const token = codec.csrfToken(session);
  assert.match(token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(codec.csrfValid(session, token), true);
  assert.equal(codec.csrfValid({ ...session, id: 'other' }, token), false);
  assert.equal(codec.csrfValid({ ...session, expires: session.expires + 1 }, token), false);
  assert.equal(codec.csrfValid(session, undefined), false);
  assert.equal(codec.csrfValid(session, `${token.slice(0, -1)}x`), false);
});

test('the CSRF token is not the cookie MAC (distinct labels)', () => {
  assert.notEqual(codec.encode(session).split('.')[1], codec.csrfToken(session));
});
