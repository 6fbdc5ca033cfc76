import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseForm, readForm } from '../../src/http/form.ts';

const post = (body: string | Uint8Array, type = 'application/x-www-form-urlencoded') =>
  new Request('http://x/', { method: 'POST', headers: { 'content-type': type }, body });

test('parses names and values with + and percent escapes as UTF-8', () => {
  assert.deepEqual(
    [...(parseForm('a=1+2&b=%C3%A9%26&c=&d') ?? [])],
    [
      ['a', '1 2'],
      ['b', 'é&'],
      ['c', ''],
      ['d', ''],
    ],
  );
});

for (const [name, body] of [
  ['a truncated escape', 'a=%2'],
  ['a non-hex escape', 'a=%zz'],
  ['an escape that is not UTF-8', 'a=%C3%28'],
  ['a repeated field', 'csrf=a&csrf=b'],
  ['too many fields', Array.from({ length: 65 }, (_, i) => `f${i}=1`).join('&')],
] as const) {
  test(`rejects ${name}`, () => assert.equal(parseForm(body), undefined));
}

test('the items of a bulk action may repeat, in order; no other field may', () => {
  const fields = parseForm('csrf=t&action=revoke&device=a&device=b&run=x%2F1');
  assert.deepEqual(fields?.all('device'), ['a', 'b']);
  assert.equal(fields?.get('device'), 'a');
  assert.deepEqual(fields?.all('run'), ['x/1']);
  assert.deepEqual(fields?.all('missing'), []);
  assert.equal(parseForm('device=a&action=revoke&action=delete'), undefined);
});

test('readForm refuses another media type as malformed', async () => {
  assert.deepEqual(await readForm(post('a=1', 'text/plain')), { ok: false, reason: 'malformed' });
  assert.deepEqual(await readForm(post('a=1', 'application/x-www-form-urlencoded; charset=latin1')), {
    ok: false,
    reason: 'malformed',
  });
});

test('readForm accepts the urlencoded type with a UTF-8 charset', async () => {
  const r = await readForm(post('a=1', 'application/x-www-form-urlencoded; charset=UTF-8'));
  assert.ok(r.ok && r.fields.get('a') === '1');
});

test('readForm refuses raw bytes that are not UTF-8', async () => {
  assert.deepEqual(await readForm(post(new Uint8Array([0x61, 0x3d, 0xff]))), { ok: false, reason: 'malformed' });
});

test('readForm caps the body at 64 KiB', async () => {
  assert.deepEqual(await readForm(post(`a=${'x'.repeat(65_536)}`)), { ok: false, reason: 'too-large' });
  assert.ok((await readForm(post(`a=${'x'.repeat(65_000)}`))).ok);
});
