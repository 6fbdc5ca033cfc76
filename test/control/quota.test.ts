// PADDOCK_DEVICE_QUOTA (docs/contract.md section 10): an upload that would take a device past its quota is
// 507 with a plain message and nothing stored; the count is a counter kept by the store.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSize } from '../../src/config/parse.ts';
import { enrollDevice, harness, upload } from '../support/harness.ts';

const admin = { subject: 'local:admin', admin: true };

test('uploads past the quota are 507 and store nothing; a retry of a stored run still answers 200', async () => {
  const h = await harness({ deviceQuotaBytes: 10 });
  try {
    const { device, credential } = await enrollDevice(h, 'oidc:user-1');
    assert.equal((await upload(h, credential, 'six', 'abcdef')).status, 201);
    const refused = await upload(h, credential, 'five', '12345');
    assert.equal(refused.status, 507);
    assert.equal(
      await refused.text(),
      "this device's storage quota is used up: nothing was stored; delete some of its runs first\n",
    );
    assert.equal(await h.store.runVisibleTo(admin, device, 'five'), undefined);
    assert.equal((await upload(h, credential, 'six', 'abcdef')).status, 200, 'an identical retry');
    assert.equal((await upload(h, credential, 'four', '1234')).status, 201, 'up to the quota exactly');
    assert.equal(await h.store.storedBytes(device), 10);
    // Without a declared length (chunked), the size is known once read: still refused, still nothing stored.
    const chunked = await h.control('/v1/runs/streamed', {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('x'));
          controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    assert.equal(chunked.status, 507);
    assert.equal(await h.store.runVisibleTo(admin, device, 'streamed'), undefined);
    // Room comes back as runs are deleted.
    assert.equal(await h.store.deleteRun(admin, device, 'six'), true);
    assert.equal(await h.store.storedBytes(device), 4);
    assert.equal((await upload(h, credential, 'five', '12345')).status, 201);
    const other = await enrollDevice(h, 'oidc:user-1');
    assert.equal((await upload(h, other.credential, 'ten', '0123456789')).status, 201, 'the quota is per device');
  } finally {
    await h.close();
  }
});

test('sizes are written as docs/contract.md section 10 says, and nothing else is taken', () => {
  assert.equal(parseSize('512KiB'), 512 * 1024);
  assert.equal(parseSize('2MiB'), 2 * 1024 ** 2);
  assert.equal(parseSize('1GiB'), 1024 ** 3);
  for (const bad of ['', '0MiB', '1.5GiB', '10', '10mb', '10 MiB', '-1KiB', '10TiB', '01MiB'])
    assert.throws(() => parseSize(bad), /must be a positive whole number followed by KiB, MiB or GiB/, bad);
});
