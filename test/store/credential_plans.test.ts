// The credential's statements (docs/contract.md section 16) read one device by an index on both
// backends: the lookup of every control call (its current credential and the one a rotation
// replaced), the first use, the rotation and the repeated one. Never a scan of devices. The
// replaced credentials kept to recognise their reuse are read by their hash and swept by
// keep_until: never a scan of replaced_credentials either.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { credentialsSql } from '../../src/store/credentials.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const checked = {
  byCredential: {
    sql: credentialsSql.byCredential,
    args: ['c77', 'c77', 5],
    sqlite: /credential_hash=\?\).*devices_previous_credential \(previous_credential_hash=\?\)/,
  },
  firstUse: { sql: credentialsSql.firstUse, args: ['c77'], sqlite: /credential_hash=\?/ },
  rotate: {
    sql: credentialsSql.rotate,
    args: ['n', 9, 's', 9, 'd77', 'c77'],
    sqlite: /^SEARCH devices USING (INDEX|PRIMARY KEY)/,
  },
  rotationOf: {
    sql: credentialsSql.rotationOf,
    args: ['d77', 'c77', 5],
    sqlite: /^SEARCH devices USING (INDEX|PRIMARY KEY)/,
  },
  endOverlaps: {
    sql: credentialsSql.endOverlaps,
    args: [5, 500],
    sqlite: /SEARCH devices USING (COVERING )?INDEX devices_overlap_until \(previous_credential_until<\?\)/,
  },
  keepReplaced: {
    sql: credentialsSql.keepReplaced,
    args: [9, 19, 99, 'd77', 'c77'],
    sqlite: /^SEARCH devices USING (INDEX|PRIMARY KEY)/,
  },
  overlapEnded: {
    sql: credentialsSql.overlapEnded,
    args: [9, 'r77', 9],
    sqlite: /^SEARCH replaced_credentials USING INDEX sqlite_autoindex_replaced_credentials_1 \(hash=\?\)/,
  },
  replaced: {
    sql: credentialsSql.replaced,
    args: ['r77', 5],
    sqlite: /SEARCH r USING INDEX sqlite_autoindex_replaced_credentials_1 \(hash=\?\).*SEARCH d USING INDEX/s,
  },
  reused: {
    sql: credentialsSql.reused,
    args: [9, 'credential reused', 'd77'],
    sqlite: /^SEARCH devices USING (INDEX|PRIMARY KEY)/,
  },
  endReplaced: {
    sql: credentialsSql.endReplaced,
    args: [5, 500],
    sqlite: /SEARCH replaced_credentials USING (COVERING )?INDEX replaced_credentials_keep_until \(keep_until<\?\)/,
  },
} as const;

test('SQLite: each credential statement searches an index, never scans devices', async () => {
  await withSqliteSchema((db) => {
    for (const [name, { sql, sqlite }] of Object.entries(checked)) {
      const plan = sqlitePlan(db, sql);
      assert.match(plan, sqlite, `${name}: ${plan}`);
      assert.doesNotMatch(plan, /SCAN (devices|replaced_credentials|r\b|d\b)/, `${name}: ${plan}`);
    }
  });
});

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL at 20,000 devices, some with a replaced credential: index scans only',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, previous_credential_hash,
          previous_credential_until)
        SELECT 'd' || i, 'device ' || i, 'oidc:owner-' || (i % 100), 'c' || i, i,
          CASE WHEN i % 50 = 0 THEN 'p' || i END, CASE WHEN i % 50 = 0 THEN i + 600000 END
        FROM generate_series(1, 20000) AS i`);
      // Every device replaced a credential four times, within the last 90 days.
      await c.query(`INSERT INTO replaced_credentials (hash, device, replaced_at, overlap_until, keep_until)
        SELECT 'r' || i || '-' || k, 'd' || i, i + k, i + k + 600000, i + k + 7776000000
        FROM generate_series(1, 20000) AS i, generate_series(1, 4) AS k`);
      await c.query('VACUUM ANALYZE devices');
      await c.query('VACUUM ANALYZE replaced_credentials');
      const lookup = await postgresPlan(c, 'plan_by_credential', checked.byCredential.sql, checked.byCredential.args);
      assert.match(lookup, /Index Scan using devices_credential_hash_key on devices/, lookup);
      assert.match(lookup, /Index Scan using devices_previous_credential on devices/, lookup);
      for (const [name, { sql, args }] of Object.entries(checked)) {
        const plan = await postgresPlan(c, `plan_${name}`, sql, args);
        assert.doesNotMatch(plan, /Seq Scan on (devices|replaced_credentials)/, `${name}:\n${plan}`);
      }
    });
  },
);
