// The level check's counting (docs/contract.md section 10): counts per rule of what the shared redaction
// rules would remove, zero on what the device client itself produced, and linear on any input.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyPrivacy, countFindings, redactText } from '../../src/domain/redaction.ts';

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

const SAMPLE = [
  'temperature=21.5 operator=alice password=hunter2',
  'contact bob@example.com from 192.168.1.20 and fe80::1:2:3',
  '{"user": "carol", "token": "abc.def", "count": 3, "serial": 12345}',
  'Authorization: Bearer abc123',
].join('\n');

test('counts per rule what the redacted rules would remove, and never the matched text', () => {
  const findings = countFindings(SAMPLE, 'redacted');
  assert.deepEqual(findings, { json_field: 3, credential_line: 1, text_field: 2, email: 1, ipv4: 1, ipv6: 1 });
  for (const secret of ['alice', 'hunter2', 'bob', '192', 'carol', 'abc'])
    assert.ok(!JSON.stringify(findings).includes(secret));
});

test('what the device client sent at a level finds nothing at that level', () => {
  const redacted = dec(applyPrivacy(enc(SAMPLE), 'text/plain', 'redacted').body);
  assert.deepEqual(countFindings(redacted, 'redacted'), {});
  const quoted = redactText('password="x" name=\'y\' {"auth": {"a": 1}} Cookie: a=b');
  assert.deepEqual(countFindings(quoted, 'redacted'), {});
  const minimal = dec(
    applyPrivacy(enc('{"duration_ms": 5, "ok": true, "user": 1}'), 'application/json', 'minimal').body,
  );
  assert.deepEqual(countFindings(minimal, 'minimal'), {});
});

test('minimal also counts the fields a summary would not hold; full finds nothing', () => {
  assert.deepEqual(countFindings('{"bytes": 3, "note": "x", "field.ok": true, "field.password": 1}', 'minimal'), {
    json_field: 1,
    summary: 2,
  });
  assert.deepEqual(countFindings('plain text from 10.0.0.1', 'minimal'), { ipv4: 1, summary: 1 });
  assert.deepEqual(countFindings(SAMPLE, 'full'), {});
});

/** Milliseconds of countFindings over `text` (the best of two). */
function timed(text: string, level: 'redacted' | 'minimal'): number {
  let best = Infinity;
  for (let i = 0; i < 2; i++) {
    const t0 = performance.now();
    countFindings(text, level);
    best = Math.min(best, performance.now() - t0);
  }
  return best;
}

// Each input aims at one pattern's worst case (long runs of the characters it repeats, separators
// without values, keys without colons, address-like chains), at 256 KiB, 1 MiB and 4 MiB. Linear:
// sixteen times the input costs about sixteen times the time, where a backtracking pattern would
// cost 256 times or more. The bound (64 times) is loose because timers, the collector and other
// tests running at once jitter; the timeout guards against hours.
const MIB = 1024 * 1024;
const ADVERSARIAL: Array<[string, (n: number) => string]> = [
  ['letters', (n) => 'a'.repeat(n)],
  ['auth tokens', (n) => 'auth'.repeat(n / 4)],
  ['auth then blanks', (n) => `xauth${' '.repeat(n - 5)}`],
  ['fields', (n) => 'x=1 '.repeat(n / 4)],
  ['separators without values', (n) => `x=${' '.repeat(n - 3)}\n`],
  ['quotes', (n) => '"'.repeat(n)],
  ['keys without colons', (n) => `"a"${' '.repeat(n - 3)}`],
  ['short keys', (n) => '"a" '.repeat(n / 4)],
  ['open JSON values', (n) => '"token": {'.repeat(n / 10)],
  ['at signs', (n) => 'a@'.repeat(n / 2)],
  ['dotted domains', (n) => `a@${'a.'.repeat(n / 2 - 1)}`],
  ['local parts', (n) => `${'a.'.repeat(n / 2 - 1)}@`],
  ['hex chains', (n) => '1:'.repeat(n / 2)],
  ['hex pairs', (n) => '1:1 '.repeat(n / 4)],
  ['long hex groups', (n) => '12345:'.repeat(n / 6)],
  ['dotted numbers', (n) => '1.'.repeat(n / 2)],
  ['escaped quotes', (n) => '\\"'.repeat(n / 2)],
];

test(
  'linear on adversarial inputs of 256 KiB to 4 MiB: sixteen times the input, about sixteen times the time',
  { timeout: 120_000 },
  () => {
    for (const [name, make] of ADVERSARIAL) {
      // `minimal` runs every rule of `redacted` and then parses the text as JSON.
      const quarter = timed(make(MIB / 4), 'minimal');
      const one = timed(make(MIB), 'minimal');
      const four = timed(make(4 * MIB), 'minimal');
      const times = `${quarter.toFixed(1)}, ${one.toFixed(1)} and ${four.toFixed(1)} ms for 256 KiB, 1 MiB and 4 MiB`;
      assert.ok(four < Math.max(quarter * 64, 250), `${name}: ${times}`);
    }
  },
);
