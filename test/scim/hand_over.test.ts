// PADDOCK_SCIM_HAND_OVER_TO (docs/contract.md sections 19 and 20): a SCIM user deactivated or
// deleted hands its account's devices (and their runs) to the owner the setting names, each
// audited as device.owner_changed; the setting is checked at start (a malformed owner is a
// configuration error, `paddock serve` exits 2); unset, the devices stay.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { ConfigError } from '../../src/config/parse.ts';
import { enrollDevice } from '../support/harness.ts';
import { ADMIN, scimClient } from './client.ts';

test('a deactivated SCIM user hands its devices over to PADDOCK_SCIM_HAND_OVER_TO', async () => {
  const s = await scimClient(undefined, { config: { scimHandOverTo: 'group:it-pool' } });
  try {
    const id = (await s.send('POST', '/Users', { userName: 'leaver@example.com' })).body.id as string;
    const subject = 'oidc:leaver';
    await s.h.store.recordSignIn({ subject, display: 'Leaver', lastSignInAt: s.h.clock.now(), admin: false });
    assert.ok(await s.h.store.linkScimUser(id, subject));
    const a = await enrollDevice(s.h, subject, 'laptop');
    const b = await enrollDevice(s.h, subject, 'phone');
    const off = await s.send('PATCH', `/Users/${id}`, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    assert.equal(off.status, 200);
    for (const d of [a.device, b.device])
      assert.equal((await s.h.store.deviceVisibleTo(ADMIN, d))?.owner, 'group:it-pool');
    const moved = s.h.logs.filter((r) => r.event === 'device.owner_changed');
    assert.equal(moved.length, 2);
    assert.ok(moved.every((r) => r.from === subject && r.to === 'group:it-pool' && r.reason === 'left'));
    const deactivated = s.h.logs.find((r) => r.event === 'scim.user_deactivated');
    assert.equal(deactivated?.handed_over, 2);
    assert.equal(deactivated?.to, 'group:it-pool');
    // A device enrolled later (say, while the account was enabled again) goes on delete too.
    await s.send('PATCH', `/Users/${id}`, { Operations: [{ op: 'replace', value: { active: true } }] });
    const c = await enrollDevice(s.h, subject, 'tablet');
    assert.equal((await s.send('DELETE', `/Users/${id}`)).status, 204);
    assert.equal((await s.h.store.deviceVisibleTo(ADMIN, c.device))?.owner, 'group:it-pool');
    await s.h.flushAudit();
  } finally {
    await s.close();
  }
});

test('PADDOCK_SCIM_HAND_OVER_TO is checked at start: a malformed owner is a configuration error', () => {
  assert.equal(loadConfig({ PADDOCK_SCIM_HAND_OVER_TO: 'group:it' }).scimHandOverTo, 'group:it');
  assert.equal(loadConfig({ PADDOCK_SCIM_HAND_OVER_TO: 'oidc:abc' }).scimHandOverTo, 'oidc:abc');
  assert.equal(loadConfig({}).scimHandOverTo, undefined);
  assert.equal(loadConfig({}).scimUserClaim, 'preferred_username');
  assert.equal(loadConfig({}).scimRequired, false);
  for (const bad of ['alice', 'group:', 'group:a\u0001b', `group:${'x'.repeat(129)}`])
    assert.throws(
      () => loadConfig({ PADDOCK_SCIM_HAND_OVER_TO: bad }),
      (err: unknown) => err instanceof ConfigError && /PADDOCK_SCIM_HAND_OVER_TO/.test((err as Error).message),
      bad,
    );
});
