import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generatePassword, hashPassword, verifyPassword } from '../../src/crypto/password.ts';

test('argon2id PHC string with the OWASP parameters verifies the right password only', async () => {
  const hash = await hashPassword('correct horse battery');
  assert.match(hash, /^\$argon2id\$v=19\$m=19456,t=2,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
  assert.equal(await verifyPassword('correct horse battery', hash), true);
  assert.equal(await verifyPassword('correct horse batterz', hash), false);
  assert.notEqual(await hashPassword('correct horse battery'), hash, 'salted');
});

test('a malformed or abusive stored hash is a failed check, never an exception', async () => {
  assert.equal(await verifyPassword('x', 'not a hash'), false);
  assert.equal(
    await verifyPassword(
      'x',
      '$argon2id$v=19$m=9999999,t=2,p=1$c2FsdHNhbHRzYWx0$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaA',
    ),
    false,
  );
});

test('a generated password has 128 bits of entropy', () => {
  const p = generatePassword();
  assert.equal(Buffer.from(p, 'base64url').length, 16);
  assert.notEqual(generatePassword(), p);
});
