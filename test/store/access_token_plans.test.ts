// The personal access tokens' queries on request paths (docs/contract.md section 11) walk an index on both
// backends: an account's list newest first with no sort, and the API's lookup by hash. SQLite's
// plans are read from an empty store; PostgreSQL's at 20,000 tokens of 100 accounts after ANALYZE.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { accessTokenLists } from '../../src/store/access_tokens.ts';
import type { Param } from '../../src/store/sql.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const queries: Array<{ name: string; sql: string; params: Param[]; sqlite: RegExp; postgres: RegExp }> = [
  {
    name: "an account's tokens, a later page",
    sql: accessTokenLists.ofSubject,
    params: ['oidc:owner-7', 15_000, 51],
    sqlite: /^SEARCH access_tokens USING INDEX access_tokens_subject_seq \(subject=\? AND seq<\?\)$/,
    postgres: /Index Scan Backward using access_tokens_subject_seq/,
  },
  {
    name: 'the lookup by hash',
    sql: accessTokenLists.byHash,
    params: ['h-1234'],
    // With its account (docs/contract.md section 14), found by its primary key.
    sqlite:
      /^SEARCH t USING INDEX access_tokens_hash \(hash=\?\)\|SEARCH a USING INDEX sqlite_autoindex_accounts_1 \(subject=\?\) LEFT-JOIN$/,
    postgres: /Index Scan using access_tokens_hash[\s\S]*Index Scan using accounts_pkey/,
  },
];

test('SQLite EXPLAIN QUERY PLAN: the access token queries search their index, never scan, never sort', async () => {
  await withSqliteSchema((db) => {
    for (const { name, sql, sqlite } of queries) {
      const plan = sqlitePlan(db, sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN access_tokens|TEMP B-TREE/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 20,000 tokens: the access token queries walk their index, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO access_tokens (public_id, subject, admin, name, hash, created_at, expires_at)
        SELECT 'a_' || i, 'oidc:owner-' || (i % 100), 0, 'token ' || i, 'h-' || i, i, i + 1000
        FROM generate_series(1, 20000) AS i`);
      await c.query('VACUUM ANALYZE access_tokens');
      for (const [i, { name, sql, params, postgres }] of queries.entries()) {
        const plan = await postgresPlan(c, `access_tokens_${i}`, sql, params);
        assert.match(plan, postgres, `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan|Sort/, `${name}:\n${plan}`);
      }
    });
  },
);
