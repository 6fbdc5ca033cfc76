// The run actions and the bulk actions (src/actions/runs.ts, bulk.ts) without HTTP: scoped
// outcomes, what the store holds after, and the exact records each emits. A bulk action is its
// items done alone: one record per item that changed something.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bulkDeleteRuns, bulkDevices } from '../../src/actions/bulk.ts';
import { deleteRun, downloadRun } from '../../src/actions/runs.ts';
import { readAll } from '../support/read_all.ts';
import { ADMIN, ANN, BOB, world } from './world.ts';

test('delete a run: within the scope only; false for a bad id, another account’s run and a run gone', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    await w.run('d1', 'r1', 'one');
    assert.equal(await deleteRun(w, BOB, { device: 'd1', id: 'r1' }), false, 'out of scope');
    assert.equal(await deleteRun(w, ANN, { device: 'd1', id: 'r 1' }), false, 'not a run id');
    assert.equal(await w.store.runStored('d1', 'r1'), true);
    assert.deepEqual(w.records(), []);
    assert.equal(await deleteRun(w, ANN, { device: 'd1', id: 'r1' }), true);
    assert.equal(await w.store.runStored('d1', 'r1'), false);
    assert.equal(await deleteRun(w, ANN, { device: 'd1', id: 'r1' }), false, 'gone');
    assert.deepEqual(w.records(), [
      { account: 'oidc:ann', client: '192.0.2.7', device: 'd1', run: 'r1', level: 'info', event: 'run.deleted' },
    ]);
  }));

test('download: the stored run, in scope, logged; undefined and nothing logged outside it', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    await w.run('d1', 'r1', 'exact bytes');
    assert.equal(await downloadRun(w, BOB, { device: 'd1', id: 'r1' }), undefined);
    assert.equal(await downloadRun(w, ANN, { device: 'd1', id: 'nope' }), undefined);
    assert.equal(await downloadRun(w, ANN, { device: '', id: 'r1' }), undefined);
    assert.deepEqual(w.records(), []);
    const run = await downloadRun(w, ADMIN, { device: 'd1', id: 'r1' });
    assert.equal(run?.size, 11);
    assert.equal(new TextDecoder().decode(await readAll(run)), 'exact bytes');
    assert.deepEqual(w.records(), [
      { account: 'local:admin', client: '192.0.2.1', device: 'd1', run: 'r1', level: 'info', event: 'run.downloaded' },
    ]);
  }));

test('bulk devices: each item as alone, counted by outcome, one record per change', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    await w.device(ANN.subject, 'd2');
    await w.device(BOB.subject, 'd3');
    assert.equal(await w.store.revokeDevice(ADMIN, 'd2', w.clock.now()), true);
    const ids = ['d1', 'd2', 'd3', 'nope', 'bad id'];
    assert.deepEqual(await bulkDevices(w, ANN, { action: 'revoke', ids }), {
      done: 1,
      unchanged: 1,
      notRevoked: 0,
      unknown: 3,
      full: 0,
    });
    assert.deepEqual(await bulkDevices(w, ADMIN, { action: 'delete', ids }), {
      done: 2,
      unchanged: 0,
      notRevoked: 1,
      unknown: 2,
      full: 0,
    });
    assert.deepEqual(
      w.records().map((r) => [r.event, r.account, r.device]),
      [
        ['device.revoked', 'oidc:ann', 'd1'],
        ['device.deleted', 'local:admin', 'd1'],
        ['device.deleted', 'local:admin', 'd2'],
      ],
    );
    assert.equal((await w.store.deviceVisibleTo(ADMIN, 'd3'))?.revokedAt, null, 'not revoked, so not deleted');
  }));

test('bulk runs: `{device}/{id}` items; what the actor may not delete is counted and left', () =>
  world(async (w) => {
    await w.device(ANN.subject, 'd1');
    await w.device(BOB.subject, 'd2');
    await w.run('d1', 'r1', 'a');
    await w.run('d1', 'r2', 'b');
    await w.run('d2', 'r3', 'c');
    const counts = await bulkDeleteRuns(w, ANN, ['d1/r1', 'd2/r3', '/r2', 'd1', 'd1/r2']);
    assert.deepEqual(counts, { done: 2, unchanged: 0, notRevoked: 0, unknown: 3, full: 0 });
    assert.equal(await w.store.runStored('d2', 'r3'), true, "another account's run stays");
    assert.deepEqual(
      w.records().map((r) => [r.event, r.account, r.client, r.device, r.run]),
      [
        ['run.deleted', 'oidc:ann', '192.0.2.7', 'd1', 'r1'],
        ['run.deleted', 'oidc:ann', '192.0.2.7', 'd1', 'r2'],
      ],
    );
  }));
