// The sign-in states' statements (docs/contract.md section 23): the callback's insert meets an
// earlier one by the primary key, and the minute sweep walks the expiry index, on both backends:
// however many states came back, neither the callback nor the sweep scans the table.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { oidcStatesSql } from '../../src/store/oidc_states.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const checked = {
  cameBack: { sql: oidcStatesSql.cameBack, args: ['h77', 5] },
  prune: {
    sql: oidcStatesSql.prune,
    args: [5, 500],
    sqlite: /SEARCH oidc_states USING COVERING INDEX oidc_states_expires_at \(expires_at<\?\)/,
  },
} as const;

test('SQLite: the callback meets the key, the sweep searches the expiry index; never a scan', async () => {
  await withSqliteSchema((db) => {
    const plan = sqlitePlan(db, checked.prune.sql);
    assert.match(plan, checked.prune.sqlite, plan);
    assert.doesNotMatch(plan, /SCAN oidc_states/, plan);
    // An INSERT has no query plan: its program shows the conflict checked on the key, and no loop.
    const program = db
      .prepare(`EXPLAIN ${checked.cameBack.sql}`)
      .all()
      .map((r) => String((r as { opcode: string }).opcode));
    assert.ok(program.includes('NoConflict'), program.join(' '));
    for (const loop of ['Rewind', 'Last', 'Next', 'Prev']) assert.ok(!program.includes(loop), program.join(' '));
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL at 50,000 states: the key is the arbiter, the sweep an index scan',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO oidc_states (state_hash, expires_at)
      SELECT md5(i::text), i FROM generate_series(1, 50000) AS i`);
      await c.query('VACUUM ANALYZE oidc_states');
      const cameBack = await postgresPlan(c, 'plan_came_back', checked.cameBack.sql, checked.cameBack.args);
      assert.match(cameBack, /Conflict Arbiter Indexes: oidc_states_pkey/, cameBack);
      const prune = await postgresPlan(c, 'plan_prune', checked.prune.sql, checked.prune.args);
      assert.match(prune, /Index (Only )?Scan using oidc_states_expires_at on oidc_states/, prune);
      for (const plan of [cameBack, prune]) assert.doesNotMatch(plan, /Seq Scan on oidc_states/, plan);
    });
  },
);
