// The one validator of `return` (docs/contract.md section 22, "Back where you were"): a local path
// of the action's own list, with its query, is followed; anything else is ignored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { backTo, hereOf, MAX_RETURN, queryReturn, returnPath } from '../../src/http/return_path.ts';

test('return: the list itself, and the list with its query, are followed', () => {
  for (const good of ['/devices', '/devices?label=site%3Ds1&before=123', '/devices?q=abc&sort=name', '/devices?']) {
    assert.equal(returnPath(good, '/devices'), good);
  }
  assert.equal(returnPath('/runs?privacy=full&before=42', '/runs'), '/runs?privacy=full&before=42');
  assert.equal(returnPath('/webhooks', '/webhooks'), '/webhooks');
  assert.equal(returnPath(`/devices?q=${'a'.repeat(MAX_RETURN - 11)}`, '/devices')?.length, MAX_RETURN);
});

test('return: everything else is ignored', () => {
  const bad = [
    undefined,
    '',
    'https://evil.example/devices',
    'http://evil.example',
    '//evil.example/devices',
    '///evil.example',
    '/\\evil.example',
    '\\\\evil.example',
    '/devices/../evil',
    '/devices/d_1',
    '/devices#x',
    '/devicesx',
    '/devices/',
    '/runs',
    '/Devices',
    'devices',
    ' /devices',
    '/devices ',
    '/devices?\r\nSet-Cookie: x=1',
    '/devices?a=\u0000',
    '/devices?a=\u007f',
    '/devices?a=\t',
    '/devices?a=é',
    '/devices?a=\\b',
    '/devices?q="><script>',
    '/devices?q=%ZZ',
    '/devices?q=a|b',
    'javascript:alert(1)',
    '/%2F%2Fevil.example',
    `/devices?q=${'a'.repeat(MAX_RETURN)}`,
  ];
  for (const value of bad) assert.equal(returnPath(value, '/devices'), undefined, JSON.stringify(value));
  assert.equal(returnPath('/devices?x=1', '/runs'), undefined, "another list's path");
  assert.equal(returnPath('/runs?x=1', '/webhooks'), undefined);
});

test('return: backTo falls back to the list, or to the fallback given', () => {
  assert.equal(backTo('/devices?q=abc', '/devices'), '/devices?q=abc');
  assert.equal(backTo('//evil.example', '/devices'), '/devices');
  assert.equal(backTo(undefined, '/devices', '/devices/d_1'), '/devices/d_1');
});

test('return: from a query, followed only when given once; a page names itself by path and query', () => {
  const r = encodeURIComponent('/devices?label=site%3Ds1');
  assert.equal(queryReturn(`http://x/devices/d_1/revoke?return=${r}`, '/devices'), '/devices?label=site%3Ds1');
  assert.equal(queryReturn(`http://x/devices/d_1/revoke?return=${r}&return=${r}`, '/devices'), undefined);
  assert.equal(queryReturn('http://x/devices/d_1/revoke', '/devices'), undefined);
  assert.equal(hereOf('http://x/devices?label=site%3Ds1&before=12'), '/devices?label=site%3Ds1&before=12');
});
