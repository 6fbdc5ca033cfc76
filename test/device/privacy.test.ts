import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPrivacy } from '../../src/device/privacy.ts';

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

test('minimal sends only counts and top-level numbers and booleans of a JSON object', () => {
  const run = enc('{"duration_ms": 1200, "ok": true, "note": "secret text", "name": 5}\n');
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
