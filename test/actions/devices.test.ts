// The device actions (src/actions/devices.ts) called as the doors and the sweeper call them: no
// HTTP, an Actor, the SQLite store. Each outcome, what the store holds after, and the exact log
// records each emits (none when nothing changed).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { deleteDevice, renameDevice, revokeDevice, revokeStaleDevices } from '../../src/actions/devices.ts';
import { SYSTEM_ACTOR } from '../../src/domain/accounts.ts';
import { ADMIN, ANN, BOB, DAY, world } from './world.ts';

test('revoke: revoked once, then already-revoked; unknown outside the scope, for a bad id and for none', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    assert.equal(await revokeDevice(w, BOB, 'd1'), 'unknown', "another account's device");
    assert.equal(await revokeDevice(w, ADMIN, 'nope'), 'unknown');
    assert.equal(await revokeDevice(w, ADMIN, '../d1'), 'unknown', 'not a device id');
    assert.deepEqual(w.records(), [], 'nothing changed, nothing logged');
    assert.equal(await revokeDevice(w, ADMIN, 'd1'), 'revoked');
    assert.equal((await w.store.deviceVisibleTo(ADMIN, 'd1'))?.revokedAt, w.clock.now());
    assert.equal(await revokeDevice(w, ADMIN, 'd1'), 'already-revoked');
    assert.deepEqual(w.records(), [
      { account: 'local:admin', client: '192.0.2.1', device: 'd1', level: 'info', event: 'device.revoked' },
    ]);
  }));

test('revoke stale: as the system actor, one record per device, with the reason and no client', () =>
  world(async (w) => {
    const now = w.clock.now();
    await w.device(ANN.subject, 'old1', now - 40 * DAY);
    await w.device(BOB.subject, 'old2', now - 40 * DAY);
    await w.device(ANN.subject, 'recent', now - 5 * DAY);
    const first = await revokeStaleDevices(w, SYSTEM_ACTOR, { staleAfterMs: 30 * DAY, limit: 1 });
    const second = await revokeStaleDevices(w, SYSTEM_ACTOR, { staleAfterMs: 30 * DAY, limit: 1 });
    assert.equal(first.length, 1, 'at most `limit` per call');
    assert.deepEqual([...first, ...second].sort(), ['old1', 'old2']);
    assert.deepEqual(await revokeStaleDevices(w, SYSTEM_ACTOR, { staleAfterMs: 30 * DAY, limit: 1 }), []);
    assert.equal((await w.store.deviceVisibleTo(ADMIN, 'recent'))?.revokedAt, null);
    assert.equal((await w.store.deviceVisibleTo(ADMIN, 'old1'))?.revokedAt, now, 'revoked at the clock’s now');
    assert.deepEqual(
      w.records(),
      [...first, ...second].map((device) => ({
        account: 'system',
        device,
        reason: 'stale',
        level: 'info',
        event: 'device.revoked',
      })),
    );
  }));

test('delete: only a revoked device, in scope; its runs go with it', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    await w.run('d1', 'r1', 'bytes');
    assert.equal(await deleteDevice(w, ADMIN, 'd1'), 'not-revoked');
    assert.equal(await deleteDevice(w, ADMIN, 'bad id'), 'unknown');
    assert.equal(await revokeDevice(w, ADMIN, 'd1'), 'revoked');
    assert.equal(await deleteDevice(w, BOB, 'd1'), 'unknown', 'out of scope');
    w.logger.records.length = 0;
    assert.equal(await deleteDevice(w, ADMIN, 'd1'), 'deleted');
    assert.equal(await w.store.deviceVisibleTo(ADMIN, 'd1'), undefined);
    assert.equal(await w.store.runStored('d1', 'r1'), false);
    assert.equal(await deleteDevice(w, ADMIN, 'd1'), 'unknown', 'gone');
    assert.deepEqual(w.records(), [
      { account: 'local:admin', client: '192.0.2.1', device: 'd1', level: 'info', event: 'device.deleted' },
    ]);
  }));

test('rename: the owner or an admin; the scope is checked before the name; the renamed device', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    assert.equal(await renameDevice(w, BOB, { id: 'd1', name: 'x' }), 'unknown', 'out of scope, whatever the name');
    assert.equal(await renameDevice(w, BOB, { id: 'd1', name: '' }), 'unknown');
    assert.equal(await renameDevice(w, ANN, { id: 'd1', name: '' }), 'bad-name');
    assert.equal(await renameDevice(w, ANN, { id: 'd1', name: 'a\u0000b' }), 'bad-name');
    assert.deepEqual(w.records(), []);
    const renamed = await renameDevice(w, ANN, { id: 'd1', name: 'bench scale' });
    assert.ok(typeof renamed === 'object');
    assert.equal(renamed.name, 'bench scale');
    assert.equal(renamed.id, 'd1');
    assert.equal((await w.store.deviceVisibleTo(ADMIN, 'd1'))?.name, 'bench scale');
    assert.deepEqual(w.records(), [
      {
        account: 'oidc:ann',
        client: '192.0.2.7',
        device: 'd1',
        name: 'bench scale',
        level: 'info',
        event: 'device.renamed',
      },
    ]);
  }));
