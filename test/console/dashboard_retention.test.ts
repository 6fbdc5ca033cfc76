// The dashboard's retention section (docs/contract.md section 10): stored bytes per level (scoped), how long
// each level is kept, and for administrators what the next sweep removes and how the last one went.
import assert from 'node:assert/strict';
import { memoryLogger } from '../../src/log/logger.ts';
import { retentionSweeper } from '../../src/sweep/retention.ts';
import type { Harness } from '../support/harness.ts';
import { enrollDevice, upload } from '../support/harness.ts';
import { runScenarios } from '../support/scenario.ts';

const DAY = 86_400_000;

/** Uma: 10 bytes full and 5 redacted, 40 days old, and 3 bytes full today; Otto: 7 bytes minimal. */
async function aged(h: Harness) {
  const uma = await enrollDevice(h, 'oidc:user-1', 'uma-laptop');
  const otto = await enrollDevice(h, 'oidc:user-2', 'otto-phone');
  assert.equal((await upload(h, uma.credential, 'old-full', '0123456789', 'full')).status, 201);
  assert.equal((await upload(h, uma.credential, 'old-redacted', 'abcde', 'redacted')).status, 201);
  assert.equal((await upload(h, otto.credential, 'old-minimal', 'minimal', 'minimal')).status, 201);
  h.clock.advance(40 * DAY);
  assert.equal((await upload(h, uma.credential, 'new-full', 'new', 'full')).status, 201);
}

const harness = { config: { retentionFullMs: 30 * DAY, retentionMinimalMs: 90 * DAY } };

runScenarios('dashboard retention', [
  {
    name: 'an admin sees stored bytes per level, retention, what the next sweep removes, and no sweep yet',
    path: '/',
    as: 'admin',
    harness,
    setup: aged,
    status: 200,
    contains: [
      '<h2>Retention</h2>',
      /<th scope="row">full<\/th>\s*<td>13 B<\/td>\s*<td>30d<\/td>\s*<td>1 run, 10 B<\/td>/,
      /<th scope="row">redacted<\/th>\s*<td>5 B<\/td>\s*<td>always<\/td>\s*<td>nothing \(kept\)<\/td>/,
      /<th scope="row">minimal<\/th>\s*<td>7 B<\/td>\s*<td>90d<\/td>\s*<td>0 runs, 0 B<\/td>/,
      'Last sweep: none yet.',
    ],
  },
  {
    name: 'after a sweep: the runs it removed are gone from the counters, and its time and result are shown',
    path: '/',
    as: 'admin',
    harness,
    setup: async (h) => {
      await aged(h);
      const sweep = retentionSweeper({
        store: h.store,
        logger: memoryLogger(),
        clock: h.clock,
        retention: { full: 30 * DAY, minimal: 90 * DAY },
        intervalMs: 600_000,
      });
      assert.equal((await sweep.sweep())?.bytes, 10);
      h.clock.advance(5 * 60_000);
    },
    status: 200,
    contains: [
      /<th scope="row">full<\/th>\s*<td>3 B<\/td>\s*<td>30d<\/td>\s*<td>0 runs, 0 B<\/td>/,
      /Last sweep: 5 minutes ago \(<time datetime="[^"]+">[^<]+<\/time>\), completed; removed 1 full, 0 redacted, 0 minimal \(10 B\)\./,
    ],
  },
  {
    name: 'an account sees its own stored bytes and the retention, not the fleet-wide sweep',
    path: '/',
    as: 'user',
    harness,
    setup: aged,
    status: 200,
    contains: [
      'Stored runs by privacy level (yours)',
      /<th scope="row">full<\/th>\s*<td>13 B<\/td>\s*<td>30d<\/td>\s*<\/tr>/,
      /<th scope="row">minimal<\/th>\s*<td>0 B<\/td>/,
    ],
    notContains: ['Next sweep removes', 'Last sweep'],
  },
  {
    name: 'with no retention set the dashboard says runs are kept',
    path: '/',
    as: 'admin',
    setup: aged,
    status: 200,
    contains: ['Runs are kept at every level', /<th scope="row">full<\/th>\s*<td>13 B<\/td>\s*<td>always<\/td>/],
  },
  {
    name: 'the section says unavailable, not an error page, when the store cannot count',
    path: '/',
    as: 'admin',
    harness,
    setup: async (h) => {
      h.store.storedBytesByLevel = () => Promise.reject(new Error('store: unavailable'));
      h.store.dueForDeletion = () => Promise.reject(new Error('store: unavailable'));
    },
    status: 200,
    contains: [/<th scope="row">full<\/th>\s*<td>unavailable<\/td>\s*<td>30d<\/td>\s*<td>unavailable<\/td>/],
  },
]);
