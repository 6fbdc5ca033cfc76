// The search across runs (docs/contract.md section 21) never runs a query whose cost grows with
// the whole store. On SQLite the FTS5 table answers the words newest first and each candidate is
// joined to its run by primary key, at most SEARCH_CANDIDATES of them. On PostgreSQL, at 200,000
// runs with their statistics: a word held by few runs is read from the GIN index (its matches,
// sorted); a word held by most walks the newest runs backward by primary key, at most the cap;
// the statement is chosen from the statistics (store/postgres/run_words.ts), and each plan holds in
// the generic form too.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { reachedSql, runsSql, SEARCH_CANDIDATES, searchStatement } from '../../src/store/runs.ts';
import { scope } from '../../src/store/sql.ts';
import { sqliteRunCandidates } from '../../src/store/sqlite/run_words.ts';
import { pgRunCandidates } from '../../src/store/postgres/run_words.ts';
import type { Viewer } from '../../src/domain/accounts.ts';
import type { RunFilter } from '../../src/domain/runs.ts';
import type { Row } from '../../src/store/sql.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const admin: Viewer = { subject: 'local:admin', admin: true, groups: [] };
const member: Viewer = { subject: 'oidc:owner-7', admin: false, groups: ['g1', 'g2'] };
const TOP = Number.MAX_SAFE_INTEGER;
const filters: Record<string, RunFilter> = {
  plain: {},
  device: { device: 'd7' },
  privacy: { privacy: 'redacted', flagged: true },
  since: { since: 1, until: 2 },
};

test('SQLite EXPLAIN QUERY PLAN: the FTS5 index newest first, each candidate joined by primary key, no sort', async () => {
  await withSqliteSchema(async (db) => {
    const found = await sqliteRunCandidates(['ecc', 'error'], TOP, 0, SEARCH_CANDIDATES);
    for (const viewer of [admin, member])
      for (const [name, filter] of Object.entries(filters)) {
        const plan = sqlitePlan(db, searchStatement(viewer, 50, filter, found).sql);
        assert.equal(
          plan,
          'CO-ROUTINE c|SCAN run_words VIRTUAL TABLE INDEX 192:M1<>|SCAN c|SEARCH r USING INTEGER PRIMARY KEY (rowid=?)',
          `${name}: ${plan}`,
        );
      }
    assert.match(
      sqlitePlan(db, reachedSql(found)),
      /^CO-ROUTINE e\|SCAN run_words VIRTUAL TABLE INDEX 192:M1<>\|SCAN e$/,
    );
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 200,000 runs: a rare word from the GIN index, a common one by a bounded walk, chosen by the statistics',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at)
        SELECT 'd' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, i FROM generate_series(1, 1000) AS i`);
      // Every run holds "common"; one in 20,000 "rare"; one in 1,000 each of w0 … w999.
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body, words)
        SELECT 'd' || (1 + i % 1000), 'r' || i, 'oidc:owner-' || (1 + i % 1000) % 100, 'text/plain', 'full', 10, 's', i,
          '\\x00', ARRAY['common', 'w' || (i % 1000)] || CASE WHEN i % 20000 = 0 THEN ARRAY['rare'] ELSE ARRAY[]::text[] END
        FROM generate_series(1, 200000) AS i`);
      await c.query('VACUUM ANALYZE runs');
      const get = async (sql: string) => (await c.query(sql)).rows[0] as Row | undefined;
      const candidates = pgRunCandidates(get);
      const rare = await candidates(['common', 'rare'], TOP, 0, SEARCH_CANDIDATES);
      const common = await candidates(['common'], TOP, 0, SEARCH_CANDIDATES);
      const unknown = await candidates(['never'], TOP, 0, SEARCH_CANDIDATES);
      assert.equal(rare.sql, rare.examined.sql, 'a rare word is read from the index');
      assert.equal(unknown.sql, unknown.examined.sql, 'a word the statistics do not know is rare');
      assert.notEqual(common.sql, common.examined.sql, 'a common word walks the newest runs');
      let i = 0;
      for (const mode of ['auto', 'force_generic_plan']) {
        await c.query(`SET plan_cache_mode = ${mode}`);
        for (const viewer of [admin, member])
          for (const [name, filter] of Object.entries(filters)) {
            const byIndex = searchStatement(viewer, 50, filter, rare);
            const plan = await postgresPlan(c, `search_${i++}`, byIndex.sql, byIndex.params);
            assert.match(plan, /Bitmap Index Scan on runs_words/, `${name} (${mode}):\n${plan}`);
            // Each candidate by its seq, or (a device's) merged with the device's index, both from the newest.
            assert.match(
              plan,
              /Index (Only )?Scan using \w+ on runs r\b[^\n]*\n\s+Index Cond: \(seq = |Merge Cond: \(runs\.seq = r\.seq\)/,
              `${name} (${mode}):\n${plan}`,
            );
            assert.doesNotMatch(plan, /Seq Scan/, `${name} (${mode}):\n${plan}`);
            const walk = searchStatement(viewer, 50, filter, common);
            const walked = await postgresPlan(c, `search_${i++}`, walk.sql, walk.params);
            assert.match(
              walked,
              /Limit[\s\S]*Index Scan Backward using (runs_pkey|runs_list) on runs/,
              `${name} (${mode}):\n${walked}`,
            );
            assert.doesNotMatch(walked, /Seq Scan|Bitmap/, `${name} (${mode}):\n${walked}`);
          }
        for (const found of [rare, common]) {
          const plan = await postgresPlan(c, `search_${i++}`, reachedSql(found), found.examined.params);
          assert.doesNotMatch(plan, /Seq Scan/, plan);
          assert.match(plan, /Limit/, plan);
        }
      }
      await c.query('RESET plan_cache_mode');
      const page = await postgresPlan(c, 'run_page', runsSql.visible, ['d7', 'r7', ...scope(member)]);
      assert.match(page, /Index Scan using collection_targets_run on collection_targets t/, page);
      assert.match(page, /Index Scan using devices_id_key on devices d/, page);
      assert.doesNotMatch(page, /Seq Scan/, page);
    });
  },
);
