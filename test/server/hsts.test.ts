import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hstsApplies } from '../../src/server/serve.ts';

test('Strict-Transport-Security is sent for a DNS admin name, never for localhost or an IP address', () => {
  for (const [baseUrl, expected] of [
    ['https://paddock.example.com', true],
    ['https://admin.test:8443/', true],
    ['https://localhost:8443', false],
    ['https://127.0.0.1:8443', false],
    ['https://[::1]:8443', false],
    ['https://10.0.0.5', false],
    ['https://[2001:db8::1]', false],
  ] as const) {
    assert.equal(hstsApplies({ baseUrl }), expected, baseUrl);
  }
});
