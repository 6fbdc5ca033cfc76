// The queries on request paths use their indexes on both backends: a page costs the same at a
// million rows. SQLite's plans are read from an empty store (its planner does not weigh sizes);
// PostgreSQL's at a realistic size, since its planner chooses by statistics.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { accountsSql } from '../../src/store/accounts.ts';
import { auditQuery, auditSql } from '../../src/store/audit.ts';
import { deviceLists } from '../../src/store/devices.ts';
import { LONGEST_TOKEN_LIFETIME_MS } from '../../src/domain/enroll_tokens.ts';
import { enrollTokenLists } from '../../src/store/enroll_tokens.ts';
import { retentionSql } from '../../src/store/retention.ts';
import { runLists, runsSql } from '../../src/store/runs.ts';
import { fanOutSql } from '../../src/store/outbox.ts';
import { webhooksSql } from '../../src/store/webhooks.ts';
import type { Param } from '../../src/store/sql.ts';
import type { AuditFilter } from '../../src/domain/audit.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

/** Every statement checked, with arguments for PostgreSQL's EXPLAIN (an owner that exists, a cursor mid-table). */
const checked = {
  allDevices: { sql: deviceLists.allDevices, args: [15_000, 51] },
  ownDevices: { sql: deviceLists.ownDevices, args: ['oidc:owner-7', 15_000, 51] },
  allRuns: { sql: runLists.allRuns, args: [100_000, 51] },
  ownRuns: { sql: runLists.ownRuns, args: ['oidc:owner-7', 100_000, 51] },
  allPerDay: { sql: runsSql.allPerDay, args: [Date.UTC(2026, 0, 1) + 55 * 86_400_000] },
  ownPerDay: { sql: runsSql.ownPerDay, args: ['oidc:owner-7', Date.UTC(2026, 0, 1) + 55 * 86_400_000] },
  allCounts: { sql: runsSql.counts.all, args: [] },
  ownCounts: { sql: runsSql.counts.own, args: ['oidc:owner-7'] },
  // The outstanding tokens at "now" = 60,000, minted within the longest lifetime before it.
  outstandingTokens: { sql: enrollTokenLists.outstanding, args: [60_000, 60_000 - LONGEST_TOKEN_LIFETIME_MS, 51] },
  outstandingTokensAfter: {
    sql: enrollTokenLists.outstandingAfter,
    args: [60_000, 60_000 - LONGEST_TOKEN_LIFETIME_MS, 't_59990', 51],
  },
  // The tokens list's total (docs/contract.md section 22): the first page's range, up to 10,001 rows.
  outstandingTokensCount: {
    sql: enrollTokenLists.outstandingCount,
    args: [60_000, 60_000 - LONGEST_TOKEN_LIFETIME_MS, 10_001],
  },
} as const;

test('SQLite EXPLAIN QUERY PLAN: each query searches an index or the primary key, never scans a table, never sorts', async () => {
  await withSqliteSchema((db) => {
    const expected: Record<keyof typeof checked, RegExp> = {
      allDevices: /^SEARCH devices USING INTEGER PRIMARY KEY \(rowid<\?\)$/,
      ownDevices: /^SEARCH devices USING INDEX devices_owner_seq \(owner=\? AND seq<\?\)$/,
      allRuns: /^SEARCH runs USING COVERING INDEX runs_list \(seq<\?\)$/,
      ownRuns: /^SEARCH runs USING COVERING INDEX runs_owner_list \(owner=\? AND seq<\?\)$/,
      allPerDay:
        /^SEARCH runs USING COVERING INDEX runs_uploaded_at \(uploaded_at>\?\)(\|USE TEMP B-TREE FOR GROUP BY)?$/,
      ownPerDay:
        /^SEARCH runs USING COVERING INDEX runs_owner_uploaded_at \(owner=\? AND uploaded_at>\?\)(\|USE TEMP B-TREE FOR GROUP BY)?$/,
      // The counts table has a row per owner: small whatever the fleet, so a scan of it is fine for
      // an administrator; an owner's rows are found by the primary key.
      allCounts: /^SCAN counts$/,
      ownCounts: /^SEARCH counts USING INDEX sqlite_autoindex_counts_1 \(owner=\?\)$/,
      outstandingTokens: /^SEARCH enroll_tokens USING INDEX enroll_tokens_outstanding \(created_at>\?\)$/,
      outstandingTokensAfter:
        /^SEARCH enroll_tokens USING INDEX enroll_tokens_outstanding \(created_at>\? AND created_at<\?\)\|SCALAR SUBQUERY 1\|SEARCH enroll_tokens USING INDEX enroll_tokens_public_id \(public_id=\?\)/,
      outstandingTokensCount: /^SEARCH enroll_tokens USING INDEX enroll_tokens_outstanding \(created_at>\?\)$/,
    };
    for (const [name, { sql }] of Object.entries(checked)) {
      const plan = sqlitePlan(db, sql);
      assert.match(plan, expected[name as keyof typeof checked], `${name}: ${plan}`);
      assert.doesNotMatch(sql, /OFFSET/i);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL EXPLAIN at 20,000 devices and 200,000 runs: index scans that stop after a page, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at)
      SELECT 'd' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, i FROM generate_series(1, 20000) AS i`);
      await c.query(`INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
      SELECT 'd' || (i % 20000 + 1), 'r' || i, 'oidc:owner-' || ((i % 20000 + 1) % 100), 'text/plain', 'full', 10, 's',
        ${Date.UTC(2026, 0, 1)}::bigint + i::bigint * 30000, '\\x00' FROM generate_series(1, 200000) AS i`);
      await c.query('VACUUM ANALYZE devices');
      await c.query('VACUUM ANALYZE runs');
      await c.query('VACUUM ANALYZE counts');
      // 60,000 tokens minted at 1..60,000, each valid for 20,000: most used up, some revoked, about
      // 1,700 outstanding (a provisioning line's worth). With only a few rows left after the cursor
      // the planner may sort those few instead, which costs as little.
      await c.query(`INSERT INTO enroll_tokens (hash, public_id, owner, created_by, created_at, expires_at, uses, uses_left, revoked_at)
      SELECT 'h' || i, 't_' || i, 'oidc:owner-' || (i % 100), 'local:admin', i, i + 20000, 1,
        CASE WHEN i % 10 = 0 THEN 1 ELSE 0 END, CASE WHEN i % 7 = 0 THEN i + 1 END FROM generate_series(1, 60000) AS i`);
      await c.query('VACUUM ANALYZE enroll_tokens');
      const expected: Record<keyof typeof checked, RegExp> = {
        allDevices: /Index Scan Backward using devices_pkey on devices/,
        ownDevices: /Index Scan Backward using devices_owner_seq on devices/,
        // Rows in seq order sit together in the table, so the primary key may serve as well as the covering index.
        allRuns: /Index (Only )?Scan Backward using (runs_list|runs_pkey) on runs/,
        ownRuns: /Index Only Scan Backward using runs_owner_list on runs/,
        // The chart's window: an index-only scan when VACUUM could mark the pages all-visible, a
        // bitmap scan of the same index when another suite's open transaction kept it from doing so.
        allPerDay: /(Index Only Scan using|Bitmap Index Scan on) runs_uploaded_at\b/,
        ownPerDay: /(Index Only Scan using|Bitmap Index Scan on) runs_owner_uploaded_at\b/,
        allCounts: /Seq Scan on counts/,
        ownCounts: /(Index Scan using|Bitmap Index Scan on) counts_pkey\b/,
        outstandingTokens: /Index Scan Backward using enroll_tokens_outstanding on enroll_tokens/,
        outstandingTokensAfter: /Index Scan Backward using enroll_tokens_outstanding on enroll_tokens/,
        outstandingTokensCount:
          /(Index (Only )?Scan( Backward)? using|Bitmap Index Scan on) enroll_tokens_outstanding\b/,
      };
      for (const [name, { sql, args }] of Object.entries(checked)) {
        const plan = await postgresPlan(c, `plan_${name}`, sql, args);
        assert.match(plan, expected[name as keyof typeof checked], `${name}:\n${plan}`);
        assert.doesNotMatch(plan, /Seq Scan on (runs|devices|enroll_tokens)/, `${name}:\n${plan}`);
        // The lists stop after a page; the chart's grouping sorts the window's days, not the table.
        if (/(Runs|Devices|Tokens|After)$/.test(name)) assert.doesNotMatch(plan, /Sort/, `${name}:\n${plan}`);
      }
      // An owner's counters by the primary key in the generic plan too, the one a statement prepared
      // on a pooled connection settles on after five runs: a condition like \`(? OR owner = ?)\` read
      // every row of counts there (200 ms at 10,000 owners after a bulk load, bench/results.md).
      await c.query('SET plan_cache_mode = force_generic_plan');
      for (const [name, sql] of Object.entries({
        ownCounts: runsSql.counts.own,
        ownBytesByLevel: retentionSql.bytesByLevel.own,
        ownRunsByLevel: retentionSql.runsByLevel.own,
      })) {
        const plan = await postgresPlan(c, `generic_${name}`, sql, ['oidc:owner-7']);
        assert.match(plan, /(Index Scan using|Bitmap Index Scan on) counts_pkey\b/, `${name}:\n${plan}`);
      }
      await c.query('RESET plan_cache_mode');
    });
  },
);

/** Each filter of GET /audit (and two together), the sweeper's prune, and the accounts page. */
const auditFilters: Record<string, AuditFilter> = {
  none: {},
  actor: { actor: 'oidc:owner-7' },
  event: { event: 'run.deleted' },
  device: { device: 'd70' },
  since: { since: Date.UTC(2026, 0, 20) },
  until: { until: Date.UTC(2026, 0, 20) },
  range: { since: Date.UTC(2026, 0, 10), until: Date.UTC(2026, 0, 20) },
  actorAndRange: { actor: 'oidc:owner-7', since: Date.UTC(2026, 0, 10), until: Date.UTC(2026, 0, 20) },
};
const auditIndex: Record<string, string> = {
  none: 'audit_at',
  actor: 'audit_account',
  event: 'audit_event',
  device: 'audit_device',
  since: 'audit_at',
  until: 'audit_at',
  range: 'audit_at',
  actorAndRange: 'audit_account',
};
/** A cursor mid-trail, as a later page has. */
const auditAfter: [number, number] = [Date.UTC(2026, 0, 25), 150_000];

test('SQLite EXPLAIN QUERY PLAN: each audit filter searches its index in page order, never scans, never sorts', async () => {
  await withSqliteSchema((db) => {
    const plan = (sql: string) => sqlitePlan(db, sql);
    for (const [name, filter] of Object.entries(auditFilters)) {
      const p = plan(auditQuery(filter, auditAfter, 51).sql);
      assert.match(p, new RegExp(`^SEARCH audit USING INDEX ${auditIndex[name]} \\(`), `${name}: ${p}`);
      assert.doesNotMatch(p, /SCAN|TEMP B-TREE/, `${name}: ${p}`);
      // The list's total counts through the same index range (docs/contract.md section 22).
      const counted = plan(`SELECT count(*) FROM (${auditQuery(filter, auditAfter, 10_001, '1').sql})`);
      assert.match(
        counted,
        new RegExp(`SEARCH audit USING (COVERING )?INDEX ${auditIndex[name]} \\(`),
        `${name}: ${counted}`,
      );
      assert.doesNotMatch(counted, /SCAN audit|TEMP B-TREE/, `${name}: ${counted}`);
    }
    // The prune reads its batch through audit_at and orders those rows only (at most `limit`), never the table.
    const prune = plan(auditSql.prune);
    assert.match(
      prune,
      /^SEARCH audit USING COVERING INDEX audit_at .*\|SEARCH audit USING COVERING INDEX audit_at /,
      prune,
    );
    assert.doesNotMatch(prune, /SCAN audit/, prune);
    const accounts = plan(accountsSql.page);
    assert.match(accounts, /^SEARCH a USING INDEX accounts_recent /, accounts);
    assert.match(accounts, /SEARCH counts USING INDEX sqlite_autoindex_counts_1 \(owner=\?\)/, accounts);
    assert.doesNotMatch(accounts, /SCAN|TEMP B-TREE/, accounts);
  });
});

test(
  'PostgreSQL EXPLAIN at 200,000 audit records: each filter an index scan in page order, no sequential scan, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO audit (at, event, account, client, device, run, detail)
      SELECT ${Date.UTC(2026, 0, 1)}::bigint + i::bigint * 15000,
        (ARRAY['device.revoked', 'run.deleted', 'login.local.succeeded', 'enroll_token.minted'])[i % 4 + 1],
        'oidc:owner-' || (i % 100), '203.0.113.7', 'd' || (i % 97), 'r' || i, '' FROM generate_series(1, 200000) AS i`);
      await c.query(`INSERT INTO accounts (subject, display, last_sign_in_at)
      SELECT 'oidc:owner-' || i, 'Owner ' || i, i FROM generate_series(1, 5000) AS i`);
      await c.query(`INSERT INTO counts (owner, shard, devices, runs)
      SELECT 'oidc:owner-' || i, s, 1, 10 FROM generate_series(1, 5000) AS i, generate_series(0, 3) AS s`);
      // Each device and account has about 2,000 records: with only a handful, PostgreSQL rightly
      // sorts them rather than walk an index, and the plan would say nothing about a busy trail.
      for (const table of ['audit', 'accounts', 'counts']) await c.query(`VACUUM ANALYZE ${table}`);
      const explain = (name: string, sql: string, args: Param[]) => postgresPlan(c, name, sql, args);
      for (const [name, filter] of Object.entries(auditFilters)) {
        const { sql, params } = auditQuery(filter, auditAfter, 51);
        const p = await explain(`audit_${name}`, sql, params);
        // An event as common as a quarter of the trail is found as fast by walking the time index
        // and skipping the others (a page reads about 200 rows): PostgreSQL may choose either.
        const index = name === 'event' ? '(audit_event|audit_at)' : auditIndex[name];
        assert.match(p, new RegExp(`Index Scan Backward using ${index} on audit`), `${name}:\n${p}`);
        assert.doesNotMatch(p, /Seq Scan|Sort/, `${name}:\n${p}`);
        // The list's total reads the same index, stopped past 10,000 rows.
        const count = auditQuery(filter, auditAfter, 10_001, '1');
        const counted = await explain(`audit_count_${name}`, `SELECT count(*) FROM (${count.sql}) AS c`, count.params);
        assert.match(
          counted,
          new RegExp(`Index (Only )?Scan Backward using ${index} on audit`),
          `${name}:\n${counted}`,
        );
        assert.doesNotMatch(counted, /Seq Scan|Sort/, `${name}:\n${counted}`);
      }
      const prune = await explain('audit_prune', auditSql.prune, [Date.UTC(2026, 0, 3), Date.UTC(2026, 0, 3), 1000]);
      assert.match(prune, /Index (Only )?Scan using audit_at on audit/, prune);
      assert.doesNotMatch(prune, /Seq Scan on audit|Join/, prune);
      const accounts = await explain('accounts_page', accountsSql.page, [2500, 'oidc:owner-2500', 51]);
      assert.match(accounts, /Index (Only )?Scan Backward using accounts_recent on accounts/, accounts);
      assert.match(accounts, /Index Scan on counts_pkey|Index Scan using counts_pkey on counts/, accounts);
      assert.doesNotMatch(accounts, /Seq Scan|Sort/, accounts);
    });
  },
);

test('SQLite EXPLAIN QUERY PLAN: a webhook claim walks the due index, not every delivery of each endpoint, and does not sort', async () => {
  await withSqliteSchema((db) => {
    const plan = sqlitePlan(db, webhooksSql.claim(''));
    assert.match(plan, /SEARCH webhook_deliveries USING INDEX webhook_deliveries_due \(next_attempt_at<\?\)/, plan);
    assert.doesNotMatch(plan, /webhook_deliveries_endpoint|TEMP B-TREE/, plan);
  });
});

test('SQLite EXPLAIN QUERY PLAN: the outbox fan-out walks the outbox in commit order without sorting; a message is found by its id', async () => {
  await withSqliteSchema((db) => {
    for (const sql of fanOutSql.sqlite) {
      const plan = sqlitePlan(db, sql);
      // The outbox holds only what is not yet fanned out: read in rowid order, stopping at the limit.
      assert.match(plan, /SCAN webhook_outbox/, plan);
      assert.doesNotMatch(plan, /TEMP B-TREE|SCAN webhook_(messages|deliveries|endpoints)\b(?! USING)/, plan);
    }
  });
});

test(
  'PostgreSQL EXPLAIN at 200,000 messages and 100,000 in the outbox: the fan-out reads a batch by the key, deletes it by the key, no sort',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO webhook_messages (id, event, data, created_at)
        SELECT 'msg_' || lpad(i::text, 8, '0'), 'run.stored', '{}', i::bigint FROM generate_series(1, 200000) AS i`);
      await c.query(`INSERT INTO webhook_outbox (id, event, data, created_at, endpoints)
        SELECT 'msg_' || lpad(i::text, 8, '0'), 'run.stored', '{}', i::bigint, 'wh_a wh_b'
        FROM generate_series(200001, 300000) AS i`);
      await c.query(`INSERT INTO webhook_endpoints (id, url, events, description, enabled, secret, created_at, created_by)
        SELECT 'wh_' || i, 'https://a.example/', 'run.stored', '', 1, 's', 0, 'local:admin' FROM generate_series(1, 50) AS i`);
      for (const table of ['webhook_messages', 'webhook_outbox', 'webhook_endpoints'])
        await c.query(`VACUUM ANALYZE ${table}`);
      const [fanOut] = fanOutSql.postgres;
      const plan = await postgresPlan(c, 'fan_out', fanOut, [64]);
      // The batch: the key's first rows, locked; then each deleted by its key, not a join over the outbox.
      assert.match(plan, /LockRows[^]*Index Scan using webhook_outbox_pkey on webhook_outbox/, plan);
      assert.match(plan, /Index Cond: \(seq = ANY/, plan);
      assert.doesNotMatch(plan, /Seq Scan on webhook_(outbox|messages)|Sort|Hash/, plan);
    });
  },
);
