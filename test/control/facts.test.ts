// PUT /v1/device/facts and enrollment's `facts` (docs/contract.md section 16): a report replaces
// the device's facts and records when; every bad shape is a 400 that names the fact at fault, with
// nothing changed (and at enrollment no device made, no use of the token taken).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';

const admin = { subject: 'local:admin', admin: true };

function put(h: Harness, credential: string | undefined, body: string | Uint8Array, type = 'application/json') {
  return h.control('/v1/device/facts', {
    method: 'PUT',
    headers: { 'content-type': type, ...(credential === undefined ? {} : { authorization: `Bearer ${credential}` }) },
    body,
  });
}

async function factsOf(h: Harness, device: string) {
  const d = await h.store.deviceVisibleTo(admin, device);
  return { facts: { ...d?.facts }, at: d?.factsReportedAt };
}

const utf8 = (text: string) => new TextEncoder().encode(text);

test('PUT /v1/device/facts: 204; the set replaces the last one, with the time it was reported', async () => {
  const h = await harness();
  try {
    const d = await enrollDevice(h, 'oidc:ann');
    assert.deepEqual(await factsOf(h, d.device), { facts: {}, at: null });
    const first = {
      os: 'linux',
      os_version: '6.12.0-1-amd64',
      arch: 'x64',
      hostname: 'café-β',
      client_version: '1.4.0',
    };
    const res = await put(h, d.credential, JSON.stringify(first));
    assert.equal(res.status, 204);
    assert.equal(await res.text(), '');
    assert.deepEqual(await factsOf(h, d.device), { facts: first, at: h.clock.now() });
    h.clock.advance(60_000);
    // Any content type: the body is read as JSON whatever it says.
    assert.equal((await put(h, d.credential, '{"os": "darwin"}', 'text/plain')).status, 204);
    assert.deepEqual(await factsOf(h, d.device), { facts: { os: 'darwin' }, at: h.clock.now() });
    assert.equal((await put(h, d.credential, '{}')).status, 204);
    assert.deepEqual(await factsOf(h, d.device), { facts: {}, at: h.clock.now() });
    const many = Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${String(i).padStart(2, '0')}`, 'v']));
    assert.equal((await put(h, d.credential, JSON.stringify(many))).status, 204);
    assert.equal(Object.keys((await factsOf(h, d.device)).facts).length, 32);
    // A report is a call: the device was seen (written off the request's path, once a minute).
    h.clock.advance(61_000);
    assert.equal((await put(h, d.credential, '{}')).status, 204);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal((await h.store.deviceVisibleTo(admin, d.device))?.lastSeenAt, h.clock.now());
  } finally {
    await h.close();
  }
});

/** Each bad body, and what its 400 must say after `facts refused, nothing changed: `. */
const refused: Array<[string, string | Uint8Array, RegExp]> = [
  [
    '33 facts',
    JSON.stringify(Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v']))),
    /^fact "k32": a device reports at most 32 facts$/,
  ],
  [
    'a control character',
    JSON.stringify({ os: 'linux', hostname: 'a\u0007b' }),
    /^fact "hostname": a fact value is a string of at most 255 printable characters$/,
  ],
  ['a newline', JSON.stringify({ os: 'linux\n' }), /^fact "os": a fact value/],
  ['DEL', JSON.stringify({ os: 'linux\u007f' }), /^fact "os": a fact value/],
  ['a C1 control', JSON.stringify({ os: 'linux\u009b' }), /^fact "os": a fact value/],
  ['a bidi override', JSON.stringify({ os: '\u202exunil' }), /^fact "os": a fact value/],
  ['a lone surrogate', '{"os": "\\ud800"}', /^fact "os": a fact value/],
  ['256 characters', JSON.stringify({ os: 'x'.repeat(256) }), /^fact "os": a fact value/],
  ['a number', '{"os": "linux", "cores": 8}', /^fact "cores": its value must be a string$/],
  ['null', '{"os": null}', /^fact "os": its value must be a string$/],
  ['true', '{"os": true}', /^fact "os": its value must be a string$/],
  ['an array', '{"os": ["linux"]}', /^fact "os": its value must be a string$/],
  ['an object', '{"os": {"name": "linux"}}', /^fact "os": its value must be a string$/],
  [
    'an upper-case key',
    '{"OS": "linux"}',
    /^fact "OS": a fact key is 1 to 63 of a-z, 0-9, -, _ and \., starting with a letter or digit$/,
  ],
  ['an empty key', '{"": "linux"}', /^fact "": a fact key/],
  ['a key starting with _', '{"_os": "linux"}', /^fact "_os": a fact key/],
  ['a key of 64', JSON.stringify({ ['k'.repeat(64)]: 'x' }), /^fact "k{64}": a fact key/],
  ['a key with a space', '{"o s": "linux"}', /^fact "o s": a fact key/],
  ['a key with a control character', '{"o\\u001bs": "linux"}', /^fact "o\?s": a fact key/],
  ['a key given twice', '{"os": "linux", "arch": "x64", "os": "darwin"}', /^fact "os": the key is given twice$/],
  ['a key given twice, escaped', '{"os": "linux", "\\u006fs": "darwin"}', /^fact "os": the key is given twice$/],
  ['__proto__', '{"__proto__": "x"}', /^fact "__proto__": a fact key/],
  ['an array body', '[["os", "linux"]]', /^facts must be a JSON object of "key": "value" strings$/],
  ['a string body', '"os=linux"', /^facts must be a JSON object/],
  ['a null body', 'null', /^facts must be a JSON object/],
  ['an empty body', '', /^the body is not JSON$/],
  ['not JSON', '{"os": "linux"', /^the body is not JSON$/],
  ['form encoding', 'os=linux', /^the body is not JSON$/],
  [
    'bytes that are not UTF-8',
    new Uint8Array([...utf8('{"os": "linux", "hostname": "a'), 0xff, 0xfe, ...utf8('"}')]),
    /^fact "hostname": its key or value is not valid UTF-8$/,
  ],
  [
    'an overlong encoding',
    new Uint8Array([...utf8('{"os": "'), 0xc0, 0xaf, ...utf8('"}')]),
    /^fact "os": its key or value is not valid UTF-8$/,
  ],
  ['bytes that are not UTF-8, not JSON either', new Uint8Array([0xff, 0xfe]), /^the body is not valid UTF-8$/],
];

test('PUT /v1/device/facts: each bad body is a 400 naming the fact at fault, and nothing changes', async () => {
  const h = await harness();
  try {
    const d = await enrollDevice(h, 'oidc:ann');
    const kept = { os: 'linux', arch: 'x64' };
    assert.equal((await put(h, d.credential, JSON.stringify(kept))).status, 204);
    const before = await factsOf(h, d.device);
    h.clock.advance(120_000);
    for (const [name, body, message] of refused) {
      const res = await put(h, d.credential, body);
      assert.equal(res.status, 400, name);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/, name);
      const text = await res.text();
      assert.ok(text.startsWith('facts refused, nothing changed: '), `${name}: ${text}`);
      assert.match(text.slice('facts refused, nothing changed: '.length).trimEnd(), message, name);
      assert.doesNotMatch(
        text,
        /[\u0000-\u0008\u000b-\u001f\u007f]/,
        `${name}: the answer echoes no control character`,
      );
      assert.deepEqual(await factsOf(h, d.device), before, name);
    }
    // Above 8 KiB: 413, nothing changed.
    const large = await put(h, d.credential, JSON.stringify({ os: 'x'.repeat(255), pad: ' '.repeat(8200) }));
    assert.equal(large.status, 413);
    assert.deepEqual(await factsOf(h, d.device), before);
  } finally {
    await h.close();
  }
});

test('PUT /v1/device/facts: no, a bad or a revoked credential is 401 and stores nothing; GET is 405', async () => {
  const h = await harness();
  try {
    const d = await enrollDevice(h, 'oidc:ann');
    for (const credential of [undefined, 'x'.repeat(43), 'short']) {
      const res = await put(h, credential, '{"os": "linux"}');
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    }
    assert.equal(await h.store.revokeDevice(admin, d.device, h.clock.now()), true);
    assert.equal((await put(h, d.credential, '{"os": "linux"}')).status, 401);
    assert.deepEqual(await factsOf(h, d.device), { facts: {}, at: null });
    const get = await h.control('/v1/device/facts', { headers: { authorization: `Bearer ${d.credential}` } });
    assert.equal(get.status, 405);
  } finally {
    await h.close();
  }
});

async function mint(h: Harness, uses = 1) {
  const token = randomToken(32);
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner: 'oidc:ann',
    createdBy: 'local:admin',
    createdAt: h.clock.now(),
    expiresAt: h.clock.now() + 60_000,
    uses,
  });
  return token;
}

const enroll = (h: Harness, body: string) =>
  h.control('/v1/enroll', { method: 'POST', headers: { 'content-type': 'application/json' }, body });

test('POST /v1/enroll takes "facts": recorded with the device; bad ones are a 400 naming the fact, no device made, no use taken', async () => {
  const h = await harness();
  try {
    const token = await mint(h);
    for (const [name, facts, message] of [
      [
        '33 facts',
        Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, 'v'])),
        /fact "k32": a device reports at most 32/,
      ],
      ['a control character', { os: 'a\u0000b' }, /fact "os": a fact value/],
      ['a non-string value', { os: 8 }, /fact "os": its value must be a string/],
      ['a bad key', { 'OS!': 'x' }, /fact "OS!": a fact key/],
      ['not an object', ['os', 'linux'], /facts must be a JSON object/],
      ['null', null, /facts must be a JSON object/],
    ] as const) {
      const res = await enroll(h, JSON.stringify({ token, name: 'dev', facts }));
      assert.equal(res.status, 400, name);
      assert.match(await res.text(), new RegExp(`^facts refused, nothing changed: ${message.source}`), name);
    }
    const twice = await enroll(h, `{"token": "${token}", "facts": {"os": "linux", "os": "darwin"}}`);
    assert.equal(twice.status, 400);
    assert.equal(await twice.text(), 'facts refused, nothing changed: fact "os": the key is given twice\n');
    assert.equal((await h.store.devicesVisibleTo(admin, { limit: 10 }, { staleBefore: 0 })).items.length, 0);
    assert.equal(h.logs.filter((r) => r.event === 'device.enrolled').length, 0);

    // The single use is still there: the same token enrolls with good facts.
    const res = await enroll(h, JSON.stringify({ token, facts: { os: 'linux', client_version: '1.4.0' } }));
    assert.equal(res.status, 201);
    const { device } = (await res.json()) as { device: string };
    assert.deepEqual(await factsOf(h, device), { facts: { client_version: '1.4.0', os: 'linux' }, at: h.clock.now() });
    // Without facts, a device has never reported.
    const other = await enroll(h, JSON.stringify({ token: await mint(h) }));
    const { device: plain } = (await other.json()) as { device: string };
    assert.deepEqual(await factsOf(h, plain), { facts: {}, at: null });
  } finally {
    await h.close();
  }
});
