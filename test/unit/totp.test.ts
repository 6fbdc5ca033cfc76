// RFC 6238 codes (its Appendix B vectors, SHA-1, the last 6 of their 8 digits), the window, and the
// sealing of the secret at rest (AES-256-GCM bound to where it belongs).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { authenticator } from 'otplib';
import { base32, hotp, matchingStep, totpStep } from '../../src/crypto/totp.ts';
import { deriveKey, open, seal } from '../../src/crypto/seal.ts';
import { codeKind, newRecoveryCode } from '../../src/domain/totp.ts';

const RFC_SECRET = Buffer.from('12345678901234567890');

test('RFC 6238 Appendix B (SHA-1): the codes at its times', () => {
  for (const [seconds, eight] of [
    [59, '94287082'],
    [1111111109, '07081804'],
    [1111111111, '14050471'],
    [1234567890, '89005924'],
    [2000000000, '69279037'],
    [20000000000, '65353130'],
  ] as const) {
    assert.equal(hotp(RFC_SECRET, totpStep(seconds * 1000)), eight.slice(2), `T=${seconds}`);
  }
});

test('the codes are those otplib computes, and base32 is what it reads', () => {
  const secret = randomBytes(20);
  for (const ms of [0, 1_700_000_000_000, 1_700_000_029_999, 1_700_000_030_000]) {
    assert.equal(hotp(secret, totpStep(ms)), authenticator.clone({ epoch: ms }).generate(base32(secret)));
  }
  assert.equal(base32(Buffer.from('foobar')), 'MZXW6YTBOI', 'RFC 4648 section 10, unpadded');
});

test('matchingStep: one step either side, not two; only six digits', () => {
  const secret = randomBytes(20);
  const now = 1_700_000_015_000;
  const step = totpStep(now);
  for (const d of [-1, 0, 1]) assert.equal(matchingStep(secret, hotp(secret, step + d), now), step + d);
  for (const d of [-2, 2]) assert.equal(matchingStep(secret, hotp(secret, step + d), now), undefined);
  const code = hotp(secret, step);
  assert.equal(matchingStep(secret, `${code}0`, now), undefined);
  assert.equal(matchingStep(secret, code.slice(0, 5), now), undefined);
});

test('a sealed secret opens only with its key and its additional data, and not once altered', () => {
  const root = randomBytes(32);
  const key = deriveKey(root, 'one');
  const secret = randomBytes(20);
  const sealed = seal(key, secret, 'totp secret local:admin');
  assert.deepEqual(open(key, sealed, 'totp secret local:admin'), secret);
  assert.equal(open(key, sealed, 'totp secret local:other'), undefined);
  assert.equal(open(deriveKey(root, 'two'), sealed, 'totp secret local:admin'), undefined);
  const flipped = Buffer.from(sealed, 'base64url');
  flipped[14] = (flipped[14] ?? 0) ^ 1;
  assert.equal(open(key, flipped.toString('base64url'), 'totp secret local:admin'), undefined);
  assert.notEqual(seal(key, secret, 'a'), seal(key, secret, 'a'), 'a fresh IV each time');
  for (const junk of ['', '!', 'A'.repeat(5000), 'AAAA']) assert.equal(open(key, junk, 'a'), undefined);
});

test('recovery codes: 80 random bits in four groups; typed codes are told apart', () => {
  const codes = Array.from({ length: 50 }, newRecoveryCode);
  assert.equal(new Set(codes).size, 50);
  for (const c of codes) assert.match(c, /^[a-z2-7]{4}(-[a-z2-7]{4}){3}$/);
  assert.deepEqual(codeKind(' 123 456 '), { kind: 'totp', code: '123456' });
  assert.deepEqual(codeKind('ABCD-EFGH-2345-WXYZ'), { kind: 'recovery', code: 'abcdefgh2345wxyz' });
  for (const other of ['', '12345', '1234567', '١٢٣٤٥٦', 'abcd-efgh-2345-wxy1', '\u0000'.repeat(6)])
    assert.equal(codeKind(other), undefined, JSON.stringify(other));
});
