/**
 * Regression tests for security review finding 3 (issue 34): a webhook target in NAT64 space
 * (`https://[64:ff9b::a9fe:a9fe]/`, on an IPv6-only cloud the metadata address 169.254.169.254)
 * was accepted and the sender tried to connect. Every spelling of an IPv4 address inside IPv6 is
 * now checked as the IPv4 address it carries, and the prefixes that hand an address to a tunnel or
 * translator whose far end cannot be checked (6to4, Teredo, the local-use NAT64 prefix, the
 * IPv4-translated form) and the deprecated site-local prefix are refused whole: when adding an
 * endpoint (console and API), before connecting and on the address a name resolves to.
 */
import assert from 'node:assert/strict';
import dns, { type LookupAddress } from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { mock, test } from 'node:test';
import { harness, consoleAccessToken } from '../support/harness.ts';
import { ACCOUNTS, runScenarios } from '../support/scenario.ts';
import { send } from '../../src/webhooks/send.ts';
import { checkUrl, refusedAddress } from '../../src/webhooks/target.ts';

/** Each newly refused target, and the kind its refusal names. */
const REFUSED: Array<[url: string, kind: string, what: string]> = [
  ['https://[64:ff9b::a9fe:a9fe]/', 'tunnelled or translated', 'NAT64 (64:ff9b::/96) of 169.254.169.254'],
  [
    'https://[64:ff9b::169.254.169.254]/latest/meta-data',
    'tunnelled or translated',
    'NAT64 written with a dotted quad',
  ],
  ['https://[64:FF9B:0:0:0:0:A9FE:A9FE]/', 'tunnelled or translated', 'NAT64 in capitals, uncompressed'],
  ['https://[64:ff9b::a00:1]/', 'tunnelled or translated', 'NAT64 of 10.0.0.1'],
  ['https://[64:ff9b::7f00:1]/', 'tunnelled or translated', 'NAT64 of 127.0.0.1'],
  ['https://[64:ff9b::808:808]/', 'tunnelled or translated', 'NAT64 of a public address: the whole prefix'],
  ['https://[64:ff9b:1::a9fe:a9fe]/', 'tunnelled or translated', 'the local-use NAT64 prefix (RFC 8215)'],
  ['https://[::a9fe:a9fe]/', 'link-local', 'IPv4-compatible (::a.b.c.d, deprecated)'],
  ['https://[::169.254.169.254]/', 'link-local', 'IPv4-compatible with a dotted quad'],
  ['https://[::ffff:a9fe:a9fe]/', 'link-local', 'IPv4-mapped in hex'],
  ['https://[0:0:0:0:0:ffff:169.254.169.254]/', 'link-local', 'IPv4-mapped, uncompressed'],
  ['https://[::ffff:0:a9fe:a9fe]/', 'tunnelled or translated', 'IPv4-translated (::ffff:0:0:0/96)'],
  ['https://[2002:a9fe:a9fe::1]/', 'tunnelled or translated', '6to4 (2002::/16) of 169.254.169.254'],
  ['https://[2002:808:808::1]/', 'tunnelled or translated', '6to4 of a public address: the whole prefix'],
  ['https://[2001:0:4136:e378:8000:63bf:5601:5601]/', 'tunnelled or translated', 'Teredo (2001::/32)'],
  ['https://[fec0::1]/', 'site-local', 'site-local (fec0::/10, deprecated)'],
  ['https://[fefe::a9fe:a9fe]/', 'site-local', 'the top of fec0::/10'],
];

for (const [url, kind, what] of REFUSED) {
  test(`finding: a webhook target in ${what} is refused (${url})`, () => {
    assert.deepEqual(checkUrl(url, false), { ok: false, reason: `the URL's address is ${kind}` });
    assert.equal(checkUrl(url, true).ok, true, 'PADDOCK_WEBHOOK_ALLOW_PRIVATE still lifts the rule');
  });
}

test('finding: a webhook target in NAT64 space (64:ff9b::a9fe:a9fe) is refused', () => {
  assert.equal(refusedAddress('64:ff9b::a9fe:a9fe'), 'tunnelled or translated');
  assert.deepEqual(checkUrl('https://[64:ff9b::a9fe:a9fe]/', false), {
    ok: false,
    reason: "the URL's address is tunnelled or translated",
  });
});

test('finding: each IPv4-in-IPv6 spelling is checked as the IPv4 address it carries, exactly', () => {
  const cases: Array<[string, string | undefined]> = [
    // NAT64's well-known prefix (RFC 6052 section 2.1) is refused whole, as the review asks.
    ['64:ff9b::808:808', 'tunnelled or translated'],
    ['64:ff9b::8.8.8.8', 'tunnelled or translated'],
    ['64:ff9b::a9fe:a9fe', 'tunnelled or translated'],
    ['64:ff9b::c0a8:101', 'tunnelled or translated'],
    ['64:ff9b::', 'tunnelled or translated'],
    // Only the /96 and RFC 8215's /48 are NAT64; the rest of 64:ff9b::/32 is not.
    ['64:ff9b:0:0:0:1:a9fe:a9fe', undefined],
    ['64:ff9b:1:ffff::1', 'tunnelled or translated'],
    ['64:ff9b:2::1', undefined],
    ['::ffff:808:808', undefined],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::FFFF:A9FE:A9FE', 'link-local'],
    ['0000:0000:0000:0000:0000:ffff:a9fe:a9fe', 'link-local'],
    ['::a9fe:a9fe', 'link-local'],
    ['::a00:1', 'private'],
    ['::808:808', undefined],
    ['::ffff:0:808:808', 'tunnelled or translated'],
    ['2002::', 'tunnelled or translated'],
    ['2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff', 'tunnelled or translated'],
    ['2001::1', 'tunnelled or translated'],
    ['2001:0:ffff:ffff:ffff:ffff:ffff:ffff', 'tunnelled or translated'],
    ['fec0::1', 'site-local'],
    ['feff:ffff::1', 'site-local'],
    // Neighbours of the refused prefixes stay allowed.
    ['2001:1::1', undefined],
    ['2001:4860:4860::8888', undefined],
    ['2003::1', undefined],
    ['::1:0:0:1', undefined],
    // A scope id is dropped before the check; the address still counts.
    ['fe80::1%eth0', 'link-local'],
    ['64:ff9b::a9fe:a9fe%1', 'tunnelled or translated'],
    // What was refused before still is.
    ['::1', 'loopback'],
    ['::', 'unspecified or reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['2001:db8::1', 'unspecified or reserved'],
    ['fd00:ec2::254', 'unique-local'],
  ];
  for (const [address, kind] of cases) assert.equal(refusedAddress(address), kind, address);
});

test('finding: IPv4 written in decimal, octal or hex in a URL is the dotted quad it means, and refused as such', () => {
  // The WHATWG URL parser reads these as IPv4 (its IPv4 parser) and gives the dotted quad, which
  // the check then sees; node's https.request is given that URL object, so it connects there too.
  for (const host of [
    '2852039166',
    '0251.0376.0251.0376',
    '0xa9fea9fe',
    '0xA9.0xFE.0xA9.0xFE',
    '169.254.43518',
    '169.16689662',
    '169.254.169.254.',
    '%31%36%39.254.169.254',
  ]) {
    assert.equal(new URL(`https://${host}/`).hostname, '169.254.169.254', host);
    assert.deepEqual(
      checkUrl(`https://${host}/`, false),
      { ok: false, reason: "the URL's address is link-local" },
      host,
    );
  }
  assert.deepEqual(checkUrl('https://2130706433/', false), { ok: false, reason: "the URL's address is loopback" });
  assert.deepEqual(checkUrl('https://0x7f.1/', false), { ok: false, reason: "the URL's address is loopback" });
  // Not IPv4 at all: an error, never a name to resolve.
  assert.equal(checkUrl('https://4294967296/', false).ok, false);
  assert.equal(checkUrl('https://[fe80::1%25eth0]/', false).ok, false);
});

test('finding: the sender refuses a NAT64 literal before connecting', async () => {
  const result = await send(new URL('https://[64:ff9b::a9fe:a9fe]/'), {}, '{}', { allowPrivate: false });
  assert.deepEqual(result, { error: 'refused: tunnelled or translated address', durationMs: 0 });
});

test('finding: a name that resolves into NAT64, 6to4 or site-local space is refused at connect time', async () => {
  const answers: Record<string, LookupAddress[]> = {
    'metadata.nat64.example': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
    'relay.6to4.example': [{ address: '2002:a9fe:a9fe::1', family: 6 }],
    'old.site.example': [{ address: 'fec0::1', family: 6 }],
  };
  const lookups: string[] = [];
  // The sender's lookup is dns.lookup (send.ts); this one answers for the names above only.
  mock.method(dns, 'lookup', (hostname: string, _options: unknown, callback: (...args: unknown[]) => void) => {
    lookups.push(hostname);
    const found = answers[hostname];
    if (!found) return callback(Object.assign(new Error(`not found: ${hostname}`), { code: 'ENOTFOUND' }));
    callback(null, found);
  });
  syncBuiltinESMExports();
  try {
    for (const [name, kind] of [
      ['metadata.nat64.example', 'tunnelled or translated'],
      ['relay.6to4.example', 'tunnelled or translated'],
      ['old.site.example', 'site-local'],
    ] as const) {
      const result = await send(new URL(`https://${name}/`), {}, '{}', { allowPrivate: false, timeoutMs: 2000 });
      assert.equal('error' in result && result.error, `refused: ${kind} address`, name);
    }
    assert.deepEqual(lookups, ['metadata.nat64.example', 'relay.6to4.example', 'old.site.example']);
  } finally {
    mock.restoreAll();
    syncBuiltinESMExports();
  }
});

runScenarios(
  'finding: NAT64 and other IPv4-in-IPv6 targets are refused when added in the console',
  REFUSED.map(([url, kind, what]) => ({
    name: what,
    method: 'POST',
    path: '/webhooks',
    as: 'admin' as const,
    form: { csrf: '$csrf', url, event: '*' },
    status: 400,
    events: [],
    // The webhooks page, the message beside the URL (docs/contract.md section 22), escaped.
    contains: [`<strong id="url-error">url is not a webhook target: the URL&#39;s address is ${kind}`],
    after: async (h) => assert.deepEqual(await h.store.webhooks(10), [], 'nothing was added'),
  })),
);

test('finding: NAT64 and other IPv4-in-IPv6 targets are refused when added through the API', async () => {
  const h = await harness();
  try {
    const token = await consoleAccessToken(h, ACCOUNTS.admin);
    for (const [url, kind] of REFUSED) {
      const res = await h.request('/api/v1/webhooks', {
        method: 'POST',
        headers: { authorization: `Bearer ${token.value}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, events: ['*'] }),
      });
      const problem = (await res.json()) as { field?: string; detail?: string };
      assert.equal(res.status, 400, url);
      assert.equal(problem.field, 'url', url);
      assert.match(problem.detail ?? '', new RegExp(`the URL's address is ${kind}$`), url);
    }
    assert.deepEqual(await h.store.webhooks(10), [], 'nothing was added');
  } finally {
    await h.close();
  }
});
