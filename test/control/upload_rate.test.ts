// A body sent more slowly than the minimum rate is cut off with 408, and nothing is stored.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createControlApp } from '../../src/control/app.ts';
import { DEFAULT_UPLOAD_LIMITS } from '../../src/control/upload_budget.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { enrollDevice, harness } from '../support/harness.ts';

test('a body slower than the minimum rate is cut off: 408, nothing stored, the device may upload again', async () => {
  const h = await harness();
  try {
    const uploadLimits = { ...DEFAULT_UPLOAD_LIMITS, minRate: { graceMs: 50, bytesPerSecond: 1024 } };
    const control = createControlApp({ store: h.store, logger: memoryLogger(), clock: h.clock, uploadLimits });
    const { device, credential } = await enrollDevice(h, 'oidc:user-1');
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('a first chunk, then nothing'));
      },
    });
    const put = (body: string | ReadableStream<Uint8Array>) =>
      control.request('http://127.0.0.1/v1/runs/slow', {
        method: 'PUT',
        headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
        body,
        duplex: 'half',
      } as RequestInit);
    const res = await put(stalled);
    assert.equal(res.status, 408);
    assert.match(await res.text(), /too slowly/);
    assert.equal(await h.store.runVisibleTo({ subject: 'local:admin', admin: true }, device, 'slow'), undefined);
    assert.equal((await put('now quickly')).status, 201);
  } finally {
    await h.close();
  }
});
