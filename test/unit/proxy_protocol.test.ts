// The PROXY protocol reader (src/server/proxy_protocol.ts) against HAProxy's specification
// (doc/proxy-protocol.txt): one row per rule and edge case of versions 1 and 2.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type ProxyRead, readProxyHeader, signatureOf, V2_MAX_BYTES } from '../../src/server/proxy_protocol.ts';
import { parseAddressRanges } from '../../src/config/parse.ts';
import { trustedPeers } from '../../src/server/accept_proxy_protocol.ts';
import { tlv, v2 } from '../support/proxy_header.ts';

const text = (s: string) => Buffer.from(s, 'latin1');
const proxy = (address: string, port: number, length: number): ProxyRead => ({
  kind: 'header',
  header: { command: 'proxy', source: { address, port } },
  length,
});
const invalid = (reason: RegExp) => reason;

type Row = [name: string, bytes: Buffer, expected: ProxyRead | RegExp | 'incomplete'];

const V1_TCP4 = 'PROXY TCP4 192.0.2.1 198.51.100.11 56324 443\r\n';
const WORST = `PROXY UNKNOWN ${'ffff:'.repeat(7)}ffff ${'ffff:'.repeat(7)}ffff 65535 65535\r\n`;

const v1Rows: Row[] = [
  ['TCP4: the source address and port', text(`${V1_TCP4}GET / HTTP/1.1\r\n`), proxy('192.0.2.1', 56324, 46)],
  [
    'TCP6: upper case and zeros written out, named as Node names a peer',
    text('PROXY TCP6 2001:DB8:0:0:0:0:0:1 2001:db8::2 1 2\r\n'),
    proxy('2001:db8::1', 1, 49),
  ],
  [
    'TCP6: an IPv4-mapped address',
    text('PROXY TCP6 ::ffff:192.0.2.1 ::1 0 65535\r\n'),
    proxy('::ffff:192.0.2.1', 0, 41),
  ],
  ['UNKNOWN, short form', text('PROXY UNKNOWN\r\n'), { kind: 'header', header: { command: 'unknown' }, length: 15 }],
  [
    'UNKNOWN: whatever comes before the CRLF is ignored',
    text('PROXY UNKNOWN what ever\r\n'),
    { kind: 'header', header: { command: 'unknown' }, length: 25 },
  ],
  [
    'the worst case, 107 bytes with the CRLF',
    text(WORST),
    { kind: 'header', header: { command: 'unknown' }, length: 107 },
  ],
  ['no CRLF in 107 bytes', text(`PROXY UNKNOWN ${'f'.repeat(200)}`), invalid(/no CRLF in 107 bytes/)],
  ['a line cut short', text('PROXY TCP4 192.0.2.1 198.51'), 'incomplete'],
  ['the signature cut short', text('PROX'), 'incomplete'],
  ['a CR last, its LF still to come', text('PROXY TCP4 192.0.2.1 198.51.100.11 56324 443\r'), 'incomplete'],
  ['a line ended by LF alone', text('PROXY TCP4 192.0.2.1 198.51.100.11 56324 443\n'), invalid(/CRLF/)],
  ['a CR not followed by LF', text('PROXY TCP4 192.0.2.1\r198.51.100.11 56324 443\r\n'), invalid(/CRLF/)],
  ['two spaces', text('PROXY  TCP4 192.0.2.1 198.51.100.11 56324 443\r\n'), invalid(/TCP4, TCP6 or UNKNOWN/)],
  ['PROXY run into the next word', text('PROXYX UNKNOWN\r\n'), invalid(/one space/)],
  ['another protocol', text('PROXY UDP4 192.0.2.1 198.51.100.11 56324 443\r\n'), invalid(/TCP4, TCP6 or UNKNOWN/)],
  ['lower case', text('PROXY tcp4 192.0.2.1 198.51.100.11 56324 443\r\n'), invalid(/TCP4, TCP6 or UNKNOWN/)],
  ['a field missing', text('PROXY TCP4 192.0.2.1 198.51.100.11 56324\r\n'), invalid(/two addresses and two ports/)],
  ['a field too many', text(`PROXY TCP4 192.0.2.1 198.51.100.11 56324 443 7\r\n`), invalid(/two addresses/)],
  ['a leading zero in an address', text('PROXY TCP4 192.0.2.01 198.51.100.11 56324 443\r\n'), invalid(/IPv4/)],
  ['an IPv4 octet over 255', text('PROXY TCP4 192.0.2.256 198.51.100.11 56324 443\r\n'), invalid(/IPv4/)],
  ['TCP4 with IPv6 addresses', text('PROXY TCP4 2001:db8::1 2001:db8::2 56324 443\r\n'), invalid(/IPv4/)],
  ['TCP6 with IPv4 addresses', text('PROXY TCP6 192.0.2.1 198.51.100.11 56324 443\r\n'), invalid(/IPv6/)],
  ['an IPv6 zone', text('PROXY TCP6 fe80::1%eth0 2001:db8::2 56324 443\r\n'), invalid(/IPv6/)],
  ['a leading zero in a port', text('PROXY TCP4 192.0.2.1 198.51.100.11 056324 443\r\n'), invalid(/port/)],
  ['a port over 65535', text('PROXY TCP4 192.0.2.1 198.51.100.11 65536 443\r\n'), invalid(/port/)],
  ['a negative port', text('PROXY TCP4 192.0.2.1 198.51.100.11 -1 443\r\n'), invalid(/port/)],
  ['a byte outside US-ASCII', text('PROXY TCP4 192.0.2.1 198.51.100.11 5632\xe9 443\r\n'), invalid(/US-ASCII/)],
  ['a NUL byte', text('PROXY TCP4 192.0.2.1\x00198.51.100.11 56324 443\r\n'), invalid(/US-ASCII/)],
  ['lower-case signature: not a header', text('proxy TCP4 192.0.2.1 198.51.100.11 56324 443\r\n'), invalid(/no PROXY/)],
  ['plain HTTP: not a header', text('GET / HTTP/1.1\r\n\r\n'), invalid(/no PROXY/)],
  ['a TLS handshake: not a header', Buffer.from([0x16, 0x03, 0x01, 0x00, 0xa5]), invalid(/no PROXY/)],
];

const IPV4 = [192, 0, 2, 1, 198, 51, 100, 11, 0xdc, 0x04, 0x01, 0xbb];
const IPV6 = [
  ...[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01],
  ...[0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02],
  ...[0xdc, 0x04, 0x01, 0xbb],
];
const MAPPED = [...[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1], ...Array(16).fill(0), 0, 80, 0, 80];

const v2Rows: Row[] = [
  ['PROXY, TCP over IPv4', v2(0x21, 0x11, IPV4), proxy('192.0.2.1', 56324, 28)],
  ['PROXY, TCP over IPv6', v2(0x21, 0x21, IPV6), proxy('2001:db8::1', 56324, 52)],
  ['PROXY, TCP over IPv6, an IPv4-mapped address', v2(0x21, 0x21, MAPPED), proxy('::ffff:192.0.2.1', 80, 52)],
  [
    'the bytes after the header are the connection’s',
    Buffer.concat([v2(0x21, 0x11, IPV4), text('GET / HTTP/1.1\r\n')]),
    proxy('192.0.2.1', 56324, 28),
  ],
  [
    'LOCAL (a health check), no addresses',
    v2(0x20, 0x00, []),
    { kind: 'header', header: { command: 'local' }, length: 16 },
  ],
  [
    'LOCAL with addresses: they are skipped, the family ignored',
    v2(0x20, 0x11, IPV4),
    { kind: 'header', header: { command: 'local' }, length: 28 },
  ],
  [
    'LOCAL with an unknown family: ignored',
    v2(0x20, 0xff, []),
    { kind: 'header', header: { command: 'local' }, length: 16 },
  ],
  [
    'PROXY over UNSPEC: the real peer',
    v2(0x21, 0x00, []),
    { kind: 'header', header: { command: 'unknown' }, length: 16 },
  ],
  [
    'PROXY, UDP over IPv4: the real peer',
    v2(0x21, 0x12, IPV4),
    { kind: 'header', header: { command: 'unknown' }, length: 28 },
  ],
  [
    'PROXY, UNIX stream: the real peer',
    v2(0x21, 0x31, Array(216).fill(0x61)),
    { kind: 'header', header: { command: 'unknown' }, length: 232 },
  ],
  ['version 1 in the version nibble', v2(0x11, 0x11, IPV4), invalid(/version must be 2/)],
  ['version 3', v2(0x31, 0x11, IPV4), invalid(/version must be 2/)],
  ['an unassigned command', v2(0x22, 0x11, IPV4), invalid(/LOCAL or PROXY/)],
  ['an unknown family', v2(0x21, 0x41, IPV4), invalid(/address family/)],
  ['an unknown transport', v2(0x21, 0x13, IPV4), invalid(/address family or transport/)],
  ['IPv4 with no transport', v2(0x21, 0x10, IPV4), invalid(/address family or transport/)],
  [
    'a length shorter than the IPv4 addresses',
    v2(0x21, 0x11, IPV4.slice(0, 11)),
    invalid(/shorter than the addresses/),
  ],
  ['a length shorter than the IPv6 addresses', v2(0x21, 0x21, IPV4), invalid(/shorter than the addresses/)],
  ['the fixed part cut short', v2(0x21, 0x11, IPV4).subarray(0, 15), 'incomplete'],
  ['the signature cut short', v2(0x21, 0x11, IPV4).subarray(0, 7), 'incomplete'],
  ['the address block cut short', v2(0x21, 0x11, IPV4).subarray(0, 20), 'incomplete'],
  [
    'TLVs are skipped',
    v2(0x21, 0x11, [...IPV4, ...tlv(0x05, 128), ...tlv(0x04, 0), ...tlv(0xe0, 9)]),
    proxy('192.0.2.1', 56324, 28 + 131 + 3 + 12),
  ],
  [
    'a TLV running past the header',
    v2(0x21, 0x11, [...IPV4, ...tlv(0x02, 10).subarray(0, 8)]),
    invalid(/TLV runs past/),
  ],
  [
    'two stray bytes after the TLVs',
    v2(0x21, 0x11, [...IPV4, ...tlv(0x04, 1), 0x01, 0x00]),
    invalid(/TLV is cut short/),
  ],
  [
    'a header of exactly the most read',
    v2(0x21, 0x11, [...IPV4, ...tlv(0x04, V2_MAX_BYTES - 16 - 12 - 3)]),
    proxy('192.0.2.1', 56324, V2_MAX_BYTES),
  ],
  [
    'a header one byte over the most read',
    v2(0x21, 0x11, [...IPV4, ...tlv(0x04, V2_MAX_BYTES - 16 - 12 - 2)]),
    invalid(/2049 bytes is over 2048/),
  ],
  [
    'a header announcing 64 KiB: refused from its first 16 bytes',
    Buffer.concat([v2(0x21, 0x11, IPV4).subarray(0, 14), Buffer.from([0xff, 0xff])]),
    invalid(/65551 bytes is over/),
  ],
  ['CRLF CRLF and HTTP: not a header', text('\r\n\r\nGET / HTTP/1.1\r\n'), invalid(/no PROXY/)],
];

for (const [name, bytes, expected] of [...v1Rows, ...v2Rows]) {
  test(`${bytes[0] === 0x50 ? 'v1' : bytes[0] === 0x0d ? 'v2' : 'none'}: ${name}`, () => {
    const read = readProxyHeader(bytes);
    if (expected === 'incomplete') assert.deepEqual(read, { kind: 'incomplete' });
    else if (expected instanceof RegExp) {
      assert.equal(read.kind, 'invalid', JSON.stringify(read));
      assert.match(read.kind === 'invalid' ? read.reason : '', expected);
    } else assert.deepEqual(read, expected);
  });
}

test('a header read byte by byte is incomplete until its last byte, then the same as read at once', () => {
  for (const whole of [text(V1_TCP4), v2(0x21, 0x21, IPV6), v2(0x21, 0x11, [...IPV4, ...tlv(0x20, 40)])]) {
    for (let n = 1; n < whole.length; n++)
      assert.deepEqual(readProxyHeader(whole.subarray(0, n)), { kind: 'incomplete' });
    assert.deepEqual(readProxyHeader(whole), readProxyHeader(Buffer.concat([whole, text('more')])));
  }
});

test('how bytes begin, for connections that must not send a header: a signature, none, or too few to tell', () => {
  const rows: Array<[string | Buffer, ReturnType<typeof signatureOf>]> = [
    ['PROXY', 'v1'],
    ['PROXY TCP4', 'v1'],
    ['PRO', 'incomplete'],
    ['P', 'incomplete'],
    ['POST / HTTP/1.1', 'none'],
    ['PUT /v1/runs/a HTTP/1.1', 'none'],
    ['PROPFIND / HTTP/1.1', 'none'],
    ['GET / HTTP/1.1', 'none'],
    ['\r\n\r\n', 'incomplete'],
    ['\r\n\r\nGET / HTTP/1.1', 'none'],
    [v2(0x21, 0x11, IPV4).subarray(0, 12), 'v2'],
    [v2(0x21, 0x11, IPV4).subarray(0, 11), 'incomplete'],
    [Buffer.from([0x16, 0x03, 0x01]), 'none'],
  ];
  for (const [bytes, expected] of rows)
    assert.equal(signatureOf(typeof bytes === 'string' ? text(bytes) : bytes), expected, String(bytes));
});

test('trusted peers: addresses and ranges of both families; an IPv4 peer of a dual-stack socket matches its IPv4 range', () => {
  const trusted = trustedPeers(parseAddressRanges('10.0.0.0/8, 192.0.2.7, 2001:db8::/32'));
  const rows: Array<[string, boolean]> = [
    ['10.1.2.3', true],
    ['::ffff:10.1.2.3', true],
    ['11.0.0.1', false],
    ['192.0.2.7', true],
    ['192.0.2.8', false],
    ['2001:db8:ffff::1', true],
    ['2001:db9::1', false],
    ['::1', false],
    ['', false],
  ];
  for (const [address, expected] of rows) assert.equal(trusted(address), expected, address);
  assert.equal(trustedPeers(parseAddressRanges('0.0.0.0/0'))('203.0.113.1'), true);
});
