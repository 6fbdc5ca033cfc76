import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPrivacy } from '../../src/domain/redaction.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

test('full sends the bytes unchanged', () => {
  const bytes = new Uint8Array([0, 255, 10]);
  assert.equal(applyPrivacy(bytes, 'application/x', 'full').body, bytes);
});

test('redacted removes e-mail and IP addresses and the values of sensitive fields, and keeps the rest', () => {
  const text = [
    'temperature=21.5 operator=alice password=hunter2',
    'contact bob@example.com from 192.168.1.20 and fe80::1:2:3',
    '{"user": "carol", "token": "abc.def", "count": 3, "serial": 12345}',
    'hostname: lab-7',
  ].join('\n');
  const out = dec(applyPrivacy(enc(text), 'text/plain', 'redacted').body);
  assert.equal(
    out,
    [
      'temperature=21.5 operator=[redacted] password=[redacted]',
      'contact [redacted] from [redacted] and [redacted]',
      '{"user": "[redacted]", "token": "[redacted]", "count": 3, "serial": "[redacted]"}',
      'hostname: [redacted]',
    ].join('\n'),
  );
  for (const secret of ['alice', 'hunter2', 'bob@', '192.168', 'fe80', 'carol', 'abc.def', '12345', 'lab-7']) {
    assert.ok(!out.includes(secret), secret);
  }
});

test('redacted: quoted values whole, compound and camelCase names, header-like credentials to the end of the line', () => {
  const cases: Array<[string, string]> = [
    ['password="hunter2" <user password="hunter2">', 'password="[redacted]" <user password="[redacted]">'],
    ["password: 'hunter 2' ok=1", "password: '[redacted]' ok=1"],
    ['Authorization: Bearer abc123\nnext=1', 'Authorization: [redacted]\nnext=1'],
    ['Cookie: sid=abc; theme=dark', 'Cookie: [redacted]'],
    [
      'db_password=x1 ACCESS_TOKEN=y2 userName=z3 x-api-key=k4 t=21.5',
      'db_password=[redacted] ACCESS_TOKEN=[redacted] userName=[redacted] x-api-key=[redacted] t=21.5',
    ],
    ['description=hello zip=12345 filename=x.txt', 'description=hello zip=12345 filename=x.txt'],
  ];
  for (const [input, expected] of cases)
    assert.equal(dec(applyPrivacy(enc(input), 'text/plain', 'redacted').body), expected);
});

test('redacted: a JSON field named as sensitive loses its whole value, whatever its type; the formatting stays', () => {
  const input = '{"token":["abc"], "secret": {"a": [1, "}"]}, "auth": null, "pin": 1, "count": 3}\n{"user": "x\\"y"}';
  assert.equal(
    dec(applyPrivacy(enc(input), 'application/json', 'redacted').body),
    '{"token":"[redacted]", "secret": "[redacted]", "auth": "[redacted]", "pin": 1, "count": 3}\n{"user": "[redacted]"}',
  );
});

// The timeout is a guard against a pattern that backtracks quadratically (which took hours on these
// inputs), far above the tens of milliseconds they take: not a speed measurement.
test('redacted: long addresses go too, and adversarial text is handled in linear time', { timeout: 20_000 }, () => {
  const long = `${'a'.repeat(100)}@example.com`;
  assert.equal(dec(applyPrivacy(enc(`to ${long}.`), 'text/plain', 'redacted').body), 'to [redacted].');
  // Each of these took seconds per 40,000 characters with unanchored patterns; a million now is quick.
  for (const text of ['a'.repeat(1_000_000), 'auth'.repeat(250_000), 'x=1 '.repeat(250_000), '"'.repeat(1_000_000)]) {
    const out = dec(applyPrivacy(enc(text), 'text/plain', 'redacted').body);
    assert.ok(out.length > 0);
  }
});

test('minimal sends only counts and top-level numbers and booleans of a JSON object', () => {
  const run = enc('{"duration_ms": 1200, "ok": true, "note": "secret text", "name": 5, "alice@x.com": 1}\n');
  const out = applyPrivacy(run, 'application/json', 'minimal');
  assert.equal(out.contentType, 'application/json');
  assert.deepEqual(JSON.parse(dec(out.body)), {
    privacy: 'minimal',
    bytes: run.byteLength,
    lines: 1,
    'field.duration_ms': 1200,
    'field.ok': true,
  });
  assert.deepEqual(JSON.parse(dec(applyPrivacy(enc('a\nb\nc'), 'text/plain', 'minimal').body)), {
    privacy: 'minimal',
    bytes: 5,
    lines: 3,
  });
});
