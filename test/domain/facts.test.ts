// docs/contract.md section 16: the shape of a device's facts (keys as label keys, values of at most
// 255 visible characters, at most 32), filters of key=value, and refusals that name the fact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { factsFromJson, MAX_FACTS, parseFactSelector, sameFacts } from '../../src/domain/facts.ts';
import { duplicateKey } from '../../src/http/duplicate_keys.ts';

const plain = (facts: object) => ({ ...facts });

test('facts of the allowed shapes are read, in key order', () => {
  const read = factsFromJson({
    os_version: 'Debian GNU/Linux 13 (trixie)',
    os: 'linux',
    hostname: 'café-β.local',
    empty: '',
    emoji: '🐴 paddock',
    [`${'k'.repeat(63)}`]: 'v'.repeat(255),
    constructor: 'x',
  });
  assert.ok(read.ok);
  assert.deepEqual(Object.keys(read.value), [
    'constructor',
    'emoji',
    'empty',
    'hostname',
    'k'.repeat(63),
    'os',
    'os_version',
  ]);
  assert.equal(read.value.hostname, 'café-β.local');
  // 255 characters, not UTF-16 units: an astral character counts once.
  assert.ok(factsFromJson({ wide: '🐴'.repeat(255) }).ok);
  assert.ok(factsFromJson(Object.fromEntries(Array.from({ length: MAX_FACTS }, (_, i) => [`k${i}`, 'v']))).ok);
  const none = factsFromJson({});
  assert.ok(none.ok);
  assert.deepEqual(plain(none.value), {});
});

test('every forbidden shape is refused, naming the fact at fault', () => {
  const cases: Array<[unknown, RegExp]> = [
    [null, /facts must be a JSON object/],
    [[], /facts must be a JSON object/],
    ['os=linux', /facts must be a JSON object/],
    [{ OS: 'linux' }, /^fact "OS": a fact key is 1 to 63/],
    [{ '': 'x' }, /^fact "": a fact key/],
    [{ _os: 'x' }, /^fact "_os": a fact key/],
    [{ 'o s': 'x' }, /^fact "o s": a fact key/],
    [{ ['k'.repeat(64)]: 'x' }, /^fact "k{64}": a fact key/],
    [JSON.parse('{"__proto__": "x"}'), /^fact "__proto__"/],
    [{ ['k'.repeat(80)]: 'x' }, /^fact "k{67}\.\.\.": a fact key/],
    [{ os: 1 }, /^fact "os": its value must be a string/],
    [{ os: null }, /^fact "os": its value must be a string/],
    [{ os: ['linux'] }, /^fact "os": its value must be a string/],
    [{ os: { name: 'linux' } }, /^fact "os": its value must be a string/],
    [{ os: true }, /^fact "os": its value must be a string/],
    [{ os: 'v'.repeat(256) }, /^fact "os": a fact value is a string of at most 255 printable/],
    [{ os: 'a\nb' }, /^fact "os": a fact value/],
    [{ os: 'a\u0000b' }, /^fact "os": a fact value/],
    [{ os: 'tab\there' }, /^fact "os": a fact value/],
    [{ os: 'del\u007f' }, /^fact "os": a fact value/],
    [{ os: 'c1\u0085' }, /^fact "os": a fact value/],
    [{ os: 'bidi\u202e' }, /^fact "os": a fact value/],
    [{ os: 'zero\u200bwidth' }, /^fact "os": a fact value/],
    [{ os: 'lone \ud800 surrogate' }, /^fact "os": a fact value/],
    [
      Object.fromEntries(Array.from({ length: MAX_FACTS + 1 }, (_, i) => [`k${i}`, 'v'])),
      /^fact "k32": a device reports at most 32 facts/,
    ],
  ];
  for (const [value, error] of cases) {
    const read = factsFromJson(JSON.parse(JSON.stringify(value) ?? 'null') as unknown);
    assert.equal(read.ok, false, JSON.stringify(value));
    if (!read.ok) assert.match(read.error, error, JSON.stringify(value));
  }
  // A key shown in an error never carries what it held: controls are shown as `?`.
  const read = factsFromJson({ 'a\u001b[31m': 'x' });
  assert.ok(!read.ok && !read.error.includes('\u001b'));
});

test('fact filters are key=value, exact; the value may hold `=` and spaces', () => {
  assert.deepEqual(parseFactSelector('os=linux'), { ok: true, value: { key: 'os', value: 'linux' } });
  assert.deepEqual(parseFactSelector('os_version=Ubuntu 24.04 LTS'), {
    ok: true,
    value: { key: 'os_version', value: 'Ubuntu 24.04 LTS' },
  });
  assert.deepEqual(parseFactSelector('x=a=b'), { ok: true, value: { key: 'x', value: 'a=b' } });
  assert.deepEqual(parseFactSelector('x='), { ok: true, value: { key: 'x', value: '' } });
  for (const bad of ['os', 'OS=linux', '=linux', 'os=a\nb', `os=${'v'.repeat(256)}`]) {
    const read = parseFactSelector(bad);
    assert.equal(read.ok, false, bad);
  }
});

test('two sets are the same when they hold the same facts, in any order', () => {
  assert.ok(sameFacts({ a: '1', b: '2' }, { b: '2', a: '1' }));
  assert.ok(!sameFacts({ a: '1' }, { a: '1', b: '2' }));
  assert.ok(!sameFacts({ a: '1', b: '2' }, { a: '1' }));
  assert.ok(!sameFacts({ a: '1' }, { a: '2' }));
  assert.ok(!sameFacts({ constructor: 'x' }, {}));
});

test('a member name given twice is found in the object asked about, escapes decoded, elsewhere ignored', () => {
  assert.equal(duplicateKey('{"os":"a","os":"b"}'), 'os');
  assert.equal(duplicateKey('{"os":"a","\\u006fs":"b"}'), 'os');
  assert.equal(duplicateKey('{"os":"a","arch":"b"}'), undefined);
  assert.equal(duplicateKey('{"a":{"x":1,"x":2},"b":1}'), undefined, 'a nested object is not the top one');
  assert.equal(duplicateKey('{"a":{"x":1,"x":2},"b":1}', ['a']), 'x');
  assert.equal(duplicateKey('{"token":"t","facts":{"os":"a","os":"b"}}', ['facts']), 'os');
  assert.equal(duplicateKey('{"token":"t","token":"u","facts":{"os":"a"}}', ['facts']), undefined);
  assert.equal(duplicateKey('{"x":[{"os":1,"os":2}],"facts":{"os":"a"}}', ['facts']), undefined);
  assert.equal(duplicateKey('{"facts":{"v":"a\\"b","w":"}","v":"c"}}', ['facts']), 'v', 'quotes and braces in strings');
  assert.equal(duplicateKey('{"facts":{"a":"x"},"other":{"facts":{"a":1,"a":2}}}', ['facts']), undefined);
  assert.equal(duplicateKey('[1,2]'), undefined);
  // Deep nesting costs no more than its length.
  const deep = `{"facts":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  const start = performance.now();
  assert.equal(duplicateKey(deep, ['facts']), undefined);
  assert.ok(performance.now() - start < 500);
});
