/** Enrolls a device that waits for an administrator's approval (docs/contract.md section 16). */
import assert from 'node:assert/strict';
import { randomToken, secretHash } from '../../src/crypto/random.ts';
import type { Harness } from './harness.ts';

/** Mints a token `approval=required` in the store and enrolls with it; the device's id. */
export async function enrollPending(h: Harness, owner: string, name: string): Promise<string> {
  const token = randomToken(32);
  const now = h.clock.now();
  await h.store.createEnrollToken({
    hash: secretHash(token),
    owner,
    createdBy: 'local:admin',
    createdAt: now,
    expiresAt: now + 60_000,
    approval: 'required',
  });
  const res = await h.control('/v1/enroll', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, name }),
  });
  assert.equal(res.status, 201, await res.clone().text());
  return ((await res.json()) as { device: string }).device;
}
