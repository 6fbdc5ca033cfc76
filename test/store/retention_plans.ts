/**
 * The retention statements' plans on PostgreSQL (store/retention.ts), checked on the data of the
 * filtered-list plan test (filter_plans.test.ts: 200,000 runs, the three levels interleaved, one
 * every 30 s from T0), so no second large table is built and vacuumed alongside it.
 */
import assert from 'node:assert/strict';
import type pg from 'pg';
import { PRIVACY_LEVELS } from '../../src/domain/privacy.ts';
import { retentionSql } from '../../src/store/retention.ts';
import { postgresPlan } from '../support/plans.ts';

export async function assertRetentionPlans(c: pg.Client, t0: number): Promise<void> {
  // A tenth of the runs expired (20,000 runs in), then none.
  for (const [cut, before] of [
    ['tenth', t0 + 20_000 * 30_000],
    ['none', t0],
  ] as const)
    for (const level of PRIVACY_LEVELS) {
      const { deleteExpired, due } = retentionSql.levels[level];
      const batch = await postgresPlan(c, `retention_delete_${level}_${cut}`, deleteExpired, [before, 500]);
      assert.match(batch, new RegExp(`Index (Only )?Scan using runs_retention_${level} on runs`), batch);
      assert.match(batch, /Index (Only )?Scan using (runs_pkey|runs_list) on runs/, batch);
      assert.doesNotMatch(batch, /Seq Scan on runs|Sort/, batch);
      const count = await postgresPlan(c, `retention_due_${level}_${cut}`, due, [before, 10_000]);
      assert.match(count, new RegExp(`Index (Only )?Scan using runs_retention_${level} on runs`), count);
      assert.doesNotMatch(count, /Seq Scan on runs|Sort/, count);
    }
}
