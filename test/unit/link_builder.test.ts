import assert from 'node:assert/strict';
import { test } from 'node:test';
import { defaultLinkBuilder } from '../../src/link/link_builder.ts';

const pin = 'sha256/q+/Z0eaoyIyVZBzT6mJ8vo4Eq8V5C0sOzB5Et+9C3Qc=';
const next = `sha256/${'B'.repeat(43)}=`;
const pins = () => [pin];
// A whole record: its uses, name and note must not reach the link (docs/contract.md section 7); its
// ceiling below `full` does, as max_privacy (docs/contract.md section 10).
const minted = {
  token: 'tok_-123',
  publicId: 't_sample',
  owner: 'local:admin',
  createdBy: 'local:admin',
  createdAt: 0,
  expiresAt: 0,
  uses: 5,
  usesLeft: 5,
  name: 'Line 4',
  note: 'a note',
  maxPrivacy: 'full',
  revokedAt: null,
  labels: {},
  approval: 'automatic',
} as const;

test('the link carries the public name (host and non-default port of BaseURL), the pin and the token', () => {
  const link = defaultLinkBuilder({ baseUrl: 'https://paddock.example:8443/console', pins })(minted);
  const url = new URL(link);
  assert.equal(url.protocol, 'paddock:');
  assert.equal(url.searchParams.get('server'), 'paddock.example:8443');
  assert.equal(url.searchParams.get('pin'), pin);
  assert.equal(url.searchParams.get('token'), 'tok_-123');
  // As the contract writes it: encoded only where a query value must be (the pin's `+`).
  assert.equal(
    link,
    'paddock://enroll?server=paddock.example:8443&pin=sha256/q%2B/Z0eaoyIyVZBzT6mJ8vo4Eq8V5C0sOzB5Et%2B9C3Qc=&token=tok_-123',
  );
});

test('an IPv6 literal keeps its brackets encoded, and decodes back', () => {
  const link = defaultLinkBuilder({ baseUrl: 'http://[::1]:8080', pins })(minted);
  assert.match(link, /server=%5B::1%5D:8080&/);
  assert.equal(new URL(link).searchParams.get('server'), '[::1]:8080');
});

test('the default port is left out', () => {
  const url = new URL(defaultLinkBuilder({ baseUrl: 'https://paddock.example', pins })(minted));
  assert.equal(url.searchParams.get('server'), 'paddock.example');
});

test('a ceiling below full travels as max_privacy, so the device refuses above it before sending', () => {
  const build = defaultLinkBuilder({ baseUrl: 'https://paddock.example', pins });
  for (const level of ['redacted', 'minimal'] as const) {
    const link = build({ ...minted, maxPrivacy: level });
    assert.ok(link.endsWith(`&token=tok_-123&max_privacy=${level}`), link);
    assert.equal(new URL(link).searchParams.get('max_privacy'), level);
  }
  assert.doesNotMatch(build(minted), /max_privacy/, 'full, the default, adds nothing');
});

test('both pins, current first, as the contract writes them (docs/contract.md section 16), read when the link is made', () => {
  let set = [pin, next];
  const build = defaultLinkBuilder({ baseUrl: 'https://paddock.example', pins: () => set });
  const link = build(minted);
  assert.equal(
    link,
    `paddock://enroll?server=paddock.example&pin=sha256/q%2B/Z0eaoyIyVZBzT6mJ8vo4Eq8V5C0sOzB5Et%2B9C3Qc=&pin=${next}&token=tok_-123`,
  );
  assert.deepEqual(new URL(link).searchParams.getAll('pin'), [pin, next]);
  // After a rotation the same builder names the new pair.
  set = [next, pin];
  assert.deepEqual(new URL(build(minted)).searchParams.getAll('pin'), [next, pin]);
});
