import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LinkError, parseEnrollmentLink } from '../../src/device_client/link.ts';
import { defaultLinkBuilder } from '../../src/link/link_builder.ts';

const pin = 'sha256/q+/Z0eaoyIyVZBzT6mJ8vo4Eq8V5C0sOzB5Et+9C3Qc=';
const next = `sha256/${'B'.repeat(43)}=`;

test('a link from the default builder parses back to its parts', () => {
  const link = defaultLinkBuilder({ baseUrl: 'https://paddock.example:8443', pins: () => [pin, next] })({
    token: 'abc_-1',
    publicId: 't_x',
    owner: 'x',
    createdBy: 'x',
    createdAt: 0,
    expiresAt: 0,
    uses: 1,
    usesLeft: 1,
    name: '',
    note: '',
    maxPrivacy: 'full',
    revokedAt: null,
    labels: {},
    approval: 'automatic',
  });
  assert.deepEqual(parseEnrollmentLink(link), { server: 'paddock.example:8443', pins: [pin, next], token: 'abc_-1' });
});

test('a link with one pin (made before the next key) is kept working', () => {
  const link = `paddock://enroll?server=a.example&pin=${encodeURIComponent(pin)}&token=t`;
  assert.deepEqual(parseEnrollmentLink(link).pins, [pin]);
});

test('max_privacy= is kept as the device ceiling', () => {
  const link = `paddock://enroll?server=a.example&pin=${encodeURIComponent(pin)}&token=t&max_privacy=minimal`;
  assert.equal(parseEnrollmentLink(link).maxPrivacy, 'minimal');
});

test('control= is kept', () => {
  const link = `paddock://enroll?server=a.example&pin=${encodeURIComponent(pin)}&token=t&control=${encodeURIComponent('https://c.example:9443')}`;
  assert.equal(parseEnrollmentLink(link).control, 'https://c.example:9443');
});

for (const [name, link] of [
  ['another scheme', `https://enroll?server=a&pin=${encodeURIComponent(pin)}&token=t`],
  ['no pin', 'paddock://enroll?server=a&token=t'],
  ['a bad pin', 'paddock://enroll?server=a&pin=md5%2Fabc&token=t'],
  ['a bad second pin', `paddock://enroll?server=a&pin=${encodeURIComponent(pin)}&pin=sha256%2Fabc&token=t`],
  ['three pins', `paddock://enroll?server=a${`&pin=${encodeURIComponent(pin)}`.repeat(3)}&token=t`],
  ['no token', `paddock://enroll?server=a&pin=${encodeURIComponent(pin)}`],
  ['two tokens', `paddock://enroll?server=a&pin=${encodeURIComponent(pin)}&token=t&token=u`],
  ['a plain-http control', `paddock://enroll?server=a&pin=${encodeURIComponent(pin)}&token=t&control=http%3A%2F%2Fc`],
  ['a server with a path', `paddock://enroll?server=a%2Fb&pin=${encodeURIComponent(pin)}&token=t`],
  ['an unknown max_privacy', `paddock://enroll?server=a&pin=${encodeURIComponent(pin)}&token=t&max_privacy=none`],
  [
    'two max_privacy',
    `paddock://enroll?server=a&pin=${encodeURIComponent(pin)}&token=t&max_privacy=full&max_privacy=minimal`,
  ],
] as const) {
  test(`refuses ${name}`, () => assert.throws(() => parseEnrollmentLink(link), LinkError));
}
