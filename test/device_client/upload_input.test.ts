// An upload whose id could never reach /v1/runs/{id} is refused on the device, before any connection.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DeviceError, uploadRun } from '../../src/device_client/client.ts';

test('ids outside the pattern, and the dot-segments "." and "..", are refused before anything is sent', async () => {
  let lookups = 0;
  const state = {
    server: 'paddock.invalid',
    device: 'd_x',
    credential: 'c',
    controlUrl: 'https://control.invalid:1',
    pins: [`sha256/${'A'.repeat(43)}=`],
  };
  for (const id of ['.', '..', 'a/b', '', 'x'.repeat(129)]) {
    await assert.rejects(
      uploadRun(
        state,
        { bytes: Buffer.from('x'), contentType: 'text/plain', privacy: 'full', id },
        { lookup: () => void lookups++ },
      ),
      (err: unknown) => err instanceof DeviceError && /neither "\." nor "\.\."/.test((err as Error).message),
      JSON.stringify(id),
    );
  }
  assert.equal(lookups, 0);
});
