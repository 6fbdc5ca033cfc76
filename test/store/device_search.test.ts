// The device search asks each backend's trigram index only for the query's rare trigrams when a
// sample of the fleet shows some (src/store/device_search.ts): the answers are those of the whole
// pattern, for any text; the plan reads the index for the rare trigrams alone and checks each
// device it finds for the whole text.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import type { DatabaseSync } from 'node:sqlite';
import {
  asciiTrigrams,
  keptSample,
  matchesAreOld,
  printableTrigrams,
  rareTrigrams,
  sampledTrigrams,
  trigramSample,
} from '../../src/store/device_search.ts';
import {
  pgDeviceSearch,
  pgSearchDevices,
  readTrigramSample as readPgSample,
  wordTrigrams,
} from '../../src/store/postgres/device_search.ts';
import { readTrigramSample as readSqliteSample, sqliteSearchDevices } from '../../src/store/sqlite/device_search.ts';
import { numbered, type Param, type Row, type Sql } from '../../src/store/sql.ts';
import { postgresPlan, sqlitePlan, withPostgresSchema, withSqliteSchema } from '../support/plans.ts';
import { dropSchemas, freshSchema, migratedUpTo, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { openPgDb } from '../../src/store/postgres/db.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import pg from 'pg';
import { filteredDevices } from '../../src/store/devices.ts';

const ADMIN = { subject: 'local:admin', admin: true };

// 100 texts: every one says "device", one in ten holds "9", one holds "x123".
const TEXTS = Array.from(
  { length: 100 },
  (_, i) => `d_x${i}\u0001Device ${i % 10 === 9 ? 9 : 0}${i === 7 ? 'x123' : ''}`,
);

test("rare trigrams, as pg_trgm's words hold them: ASCII letters and digits, rarest first, at most four", () => {
  const sample = trigramSample(TEXTS, wordTrigrams);
  assert.equal(sample.lowered.length, 100);
  assert.equal(sample.held.get('dev'), 100);
  assert.deepEqual(rareTrigrams('DEVICE 123', sample, wordTrigrams), ['123'], '"dev" is common, "123" in 1 of 100');
  assert.deepEqual(rareTrigrams('device 9', sample, wordTrigrams), [], 'no trigram but common ones');
  assert.deepEqual(rareTrigrams('e 12', sample, wordTrigrams), [], 'none across words: pg_trgm splits there');
  assert.deepEqual(rareTrigrams('zé_z%q_', sample, wordTrigrams), [], 'none of other characters');
  assert.deepEqual(rareTrigrams('abcdefgh', sample, wordTrigrams), ['abc', 'bcd', 'cde', 'def'], 'at most four');
  const small = trigramSample(TEXTS.slice(0, 63), wordTrigrams);
  assert.deepEqual(rareTrigrams('device 123', small, wordTrigrams), [], 'a sample under 64 texts tells nothing');
  assert.deepEqual(rareTrigrams('device 123', undefined, wordTrigrams), []);
});

test("rare trigrams, as FTS5's trigram tokenizer holds them: any three characters, of a query in ASCII only", () => {
  const sample = trigramSample(TEXTS, sampledTrigrams);
  assert.deepEqual(
    rareTrigrams('vice 123', sample, asciiTrigrams),
    [' 12', 'e 1', '123'],
    'across spaces, rarest first',
  );
  assert.deepEqual(rareTrigrams('Übersee 123', sample, asciiTrigrams), [], 'a query beyond ASCII goes whole');
  assert.deepEqual(rareTrigrams('a"b', sample, asciiTrigrams), ['a"b']);
});

test('the conditions: the whole pattern without rare trigrams; else the rare ones and the whole text checked', () => {
  const texts = Array.from({ length: 100 }, (_, i) => `d_${i}\u0001device ${i}`);
  const pgSample = trigramSample(texts, sampledTrigrams);
  // No rare word trigram: the list newest first walks the least common printable trigram's devices
  // (" 1%", which no sampled text holds), each checked for the whole text.
  assert.deepEqual(pgSearchDevices('Device 1%_', false, pgSample), {
    sql: "lower(id || chr(1) || name) LIKE ? ESCAPE '\\'",
    params: ['%device 1\\%\\_%'],
    walk: {
      matches: 'SELECT seq AS m FROM device_trigrams WHERE trigram = ?',
      matchParams: [' 1%'],
      key: 'seq',
      on: 'seq = m + 0',
      check: 'strpos(lower(id || chr(1) || name), ?) > 0',
      checkParams: ['device 1%_'],
    },
  });
  assert.deepEqual(pgSearchDevices('Device 1', false, pgSample).walk?.matchParams, ['e 1'], 'in 11 of 100');
  assert.deepEqual(
    pgSearchDevices('Device', false, pgSample),
    {
      sql: "lower(id || chr(1) || name) LIKE ? ESCAPE '\\'",
      params: ['%device%'],
    },
    'every trigram held by most: the pattern, the list walked newest first',
  );
  // No printable trigram, and no sampled text holds it: its matches, if any, are read whole and
  // sorted (matchesAreOld).
  assert.equal(pgSearchDevices('ÄÖÜ', false, pgSample).sorted, true);
  assert.equal(pgSearchDevices('Device 1%_', false, undefined).walk, undefined, 'no sample, no guess');
  assert.equal(pgSearchDevices('ÄÖÜ', false, undefined).sorted, undefined, 'no sample, no guess');
  assert.deepEqual(pgSearchDevices('Device 4321', false, pgSample), {
    sql: 'lower(id || chr(1) || name) LIKE ? AND lower(id || chr(1) || name) LIKE ? AND strpos(lower(id || chr(1) || name), ?) > 0',
    params: ['%321%', '%432%', 'device 4321'],
    // The list newest first walks the rarest trigram, whose matches may be old as well.
    walk: {
      matches: 'SELECT seq AS m FROM device_trigrams WHERE trigram = ?',
      matchParams: ['321'],
      key: 'seq',
      on: 'seq = m + 0',
      check: 'strpos(lower(id || chr(1) || name), ?) > 0',
      checkParams: ['device 4321'],
    },
  });
  assert.deepEqual(pgSearchDevices('Device 4321', true, pgSample), {
    sql: 'strpos(lower(id || chr(1) || name), ?) > 0',
    params: ['device 4321'],
  });
  const sqliteSample = trigramSample(texts, sampledTrigrams);
  // A query in ASCII is checked with instr in every form; any other is the tokenizer's alone.
  assert.deepEqual(sqliteSearchDevices('a "quoted" name', false, undefined).params, [
    '"a ""quoted"" name"',
    'a "quoted" name',
  ]);
  assert.deepEqual(sqliteSearchDevices('Übersee', false, undefined), {
    sql: 'seq IN (SELECT rowid AS m FROM devices_search WHERE devices_search MATCH ?)',
    params: ['"Übersee"'],
    walk: {
      matches: 'SELECT rowid AS m FROM devices_search WHERE devices_search MATCH ?',
      matchParams: ['"Übersee"'],
      key: 'rowid',
      on: 'seq = m',
      check: '',
      checkParams: [],
    },
  });
  const driven = sqliteSearchDevices('Device 4321', false, sqliteSample);
  assert.match(driven.sql, /MATCH \?\)\s+AND instr\(lower\(id \|\| char\(1\) \|\| name\), \?\) > 0$/);
  assert.deepEqual(driven.params, ['"321" AND "432" AND " 43"', 'device 4321'], '"e 4" is in 11 of 100: common');
  // No rare trigram: the list is the whole phrase, its walk newest first the least common trigrams
  // ("e 1", in 11 of 100), as FTS5 reads a term's whole list to walk it backwards.
  const walked = sqliteSearchDevices('Device 1', false, sqliteSample);
  assert.deepEqual(walked.params, ['"Device 1"', 'device 1']);
  assert.deepEqual(walked.walk?.matchParams, ['"e 1"']);
  assert.equal(walked.walk?.check, 'instr(lower(id || char(1) || name), ?) > 0');
  assert.deepEqual(sqliteSearchDevices('Device 1', false, undefined).walk?.matchParams, ['"Device 1"'], 'no sample');
  // Held whole by most of the sample: each device checked; beyond ASCII, the phrase.
  assert.deepEqual(sqliteSearchDevices('DEVICE', false, sqliteSample), {
    sql: 'instr(lower(id || char(1) || name), ?) > 0',
    params: ['device'],
  });
  const accented = trigramSample(
    texts.map((t) => `${t} é`),
    sampledTrigrams,
  );
  assert.match(sqliteSearchDevices('E É', false, accented).sql, /MATCH/);
});

test('old matches: a walk newest first would read more than an eighth of the sample before the first', () => {
  // Newest first: "device 99" down to "device 0".
  const sample = trigramSample(
    Array.from({ length: 100 }, (_, i) => `d_${99 - i}\u0001device ${99 - i}`),
    sampledTrigrams,
  );
  assert.equal(matchesAreOld('device 9', sample), false, 'the newest ten');
  assert.equal(matchesAreOld('device 8', sample), false, 'from the 11th: an eighth is 12.5');
  assert.equal(matchesAreOld('device 7', sample), true, 'from the 21st');
  assert.equal(matchesAreOld('nowhere', sample), true, 'none sampled: few, wherever they are');
  assert.equal(matchesAreOld('DEVICE 1', sample), true, 'any case');
  assert.equal(matchesAreOld('device 7', trigramSample([], sampledTrigrams)), false, 'too small to tell');
  assert.equal(matchesAreOld('device 7', undefined), false);
});

test('the sample: random devices by their seq, read once a minute in the background; a failed read keeps the last', async () => {
  let now = 0;
  let reads = 0;
  let fail = false;
  const asked: string[] = [];
  const search = pgDeviceSearch(
    async (sql, ...params) => {
      if (sql.includes('min(seq)')) return { low: 1, high: 100 } as Row;
      reads++;
      if (fail) throw new Error('connection lost');
      asked.push(String(params[0]));
      return { texts: Array.from({ length: 100 }, (_, i) => `d_${i}\u0001device ${i}`) } as Row;
    },
    () => now,
  );
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  assert.match(search('device 4321').sql, /ESCAPE/, 'before the first read: the whole pattern');
  await settled();
  assert.match(search('device 4321').sql, /strpos/, 'then the rare trigrams');
  const seqs = (asked[0] ?? '').split(',').map(Number);
  assert.equal(seqs.length, 256);
  assert.ok(
    seqs.every((n) => Number.isInteger(n) && n >= 1 && n <= 100),
    'drawn between the least seq and the greatest',
  );
  now += 59_999;
  search('device 4321');
  assert.equal(reads, 1, 'read once a minute');
  now += 1;
  fail = true;
  search('device 4321');
  await settled();
  assert.equal(reads, 2);
  assert.match(search('device 4321').sql, /strpos/, 'a failed read keeps the sample it had');
  // The keeper alone: nothing until the first read settles.
  const kept = keptSample(async () => trigramSample([], wordTrigrams));
  assert.equal(kept(), undefined);
  await settled();
  assert.equal(kept()?.lowered.length, 0);
});

test('no devices: no sample', async () => {
  assert.equal(await readPgSample(async () => ({ low: null, high: null }) as Row), undefined);
  assert.equal(
    readSqliteSample(() => [{ low: null, high: null }]),
    undefined,
  );
});

/** Queries in several cases and scripts, with LIKE's wildcards, FTS5's quote and a backslash. */
const QUERIES = [
  'device 1234',
  'DEVICE 1234',
  'kiosk-1999',
  'KIOSK-1999',
  'übersee 777',
  'ÜBERSEE 777',
  'host_100%\\1',
  'st_100%',
  'd_1234',
  'e 12',
  'device',
  'nothing 123',
  'say "hi" 42',
  'DX_',
  'dx_1',
];

/** 20,000 devices with names of those kinds, the same on both backends. */
const NAME = `(ARRAY['Device ', 'KIOSK-', 'Übersee ', 'host_100%\\', 'say "hi" '])[i % 5 + 1] || i`;

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'PostgreSQL at 20,000 devices: the rare trigrams find what the whole pattern finds, and the plan reads only them',
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      await c.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at, last_seen_at)
        SELECT 'd_' || i, ${NAME}, 'k' || i, 'oidc:owner-' || (i % 100), 'c' || i, i, i
        FROM generate_series(1, 20000) AS i`);
      await c.query('VACUUM ANALYZE devices');
      const sample = await readPgSample(
        async (sql, ...params) => (await c.query(numbered(sql), params)).rows[0] as Row | undefined,
      );
      assert.ok(sample && sample.lowered.length > 200, 'about 256 devices drawn');
      const found = async (condition: { sql: string; params: Param[] }) =>
        (
          await c.query<{ id: string }>(
            numbered(`SELECT id FROM devices WHERE ${condition.sql} ORDER BY seq`),
            condition.params,
          )
        ).rows.map((r) => r.id);
      let driven = 0;
      for (const q of QUERIES) {
        const condition = pgSearchDevices(q, false, sample);
        if (condition.sql.includes('strpos')) driven++;
        const whole = await found(pgSearchDevices(q));
        assert.deepEqual(await found(condition), whole, q);
        if (q === 'device 1234') assert.equal(whole.length, 2, 'Device 12340 and Device 12345');
      }
      assert.ok(driven >= 6, `most of these queries are driven by rare trigrams (${driven})`);
      // The list newest first finds every match in order, walked or not, for any sample's choice.
      // A sample holding every word trigram of the queries (none rare) and no other: each query with
      // a trigram across words or punctuation walks it.
      const words = QUERIES.flatMap((q) => [...wordTrigrams(q.toLowerCase())]).join('\u0001');
      const walkedSample = trigramSample(
        Array.from({ length: 256 }, (_, i) => (i < 200 ? words : '')),
        sampledTrigrams,
      );
      // And with the sample as drawn, where rare trigrams walk as well.
      const walked = { drawn: 0, wordsOnly: 0 };
      for (const [which, chosen] of [
        ['drawn', sample],
        ['wordsOnly', walkedSample],
      ] as const)
        for (const q of QUERIES) {
          const via = { searchDevices: (text: string) => pgSearchDevices(text, false, chosen) } as Sql;
          const list = filteredDevices(via, ADMIN, { limit: 30_000 }, { q, staleBefore: 0 });
          if (list.sql.includes('device_trigrams')) walked[which]++;
          const listed = (await c.query<{ id: string }>(numbered(list.sql), list.params)).rows.map((r) => r.id);
          assert.deepEqual(listed, (await found(pgSearchDevices(q))).reverse(), `${q} (${which})`);
        }
      assert.ok(walked.wordsOnly >= 12, `most of these queries walk device_trigrams (${walked.wordsOnly})`);
      const condition = pgSearchDevices('device 1234', false, sample);
      const plan = await postgresPlan(
        c,
        'driven',
        `SELECT seq, id FROM devices WHERE ${condition.sql} ORDER BY seq DESC LIMIT 51`,
        condition.params,
      );
      // The index is asked for rare trigrams of digits ("123", "234"), none of "device".
      assert.match(plan, /Bitmap Index Scan on devices_search[^\n]*\n\s+Index Cond: .*~~ '%\d{3}%'::text/, plan);
      assert.doesNotMatch(plan, /~~ '%(dev|evi|vic|ice)%'/, plan);
      assert.match(plan, /Filter: \(strpos\(/, plan);
      // "KIOSK-3…" are all among the oldest fifth, and no word trigram of it is rare: the list
      // walks the devices of its least common trigram in device_trigrams, newest first, page after
      // page, and never the GIN index or the primary key from the newest device.
      const walk = pgSearchDevices('kiosk-3', false, sample).walk;
      assert.ok(walk, 'a walk of device_trigrams');
      assert.equal(walk.matchParams.length, 1);
      assert.ok('kiosk-3'.includes(String(walk.matchParams[0])), String(walk.matchParams[0]));
      const viaSample = { searchDevices: (q: string) => pgSearchDevices(q, false, sample) } as Sql;
      const ids = async (sql: string, params: Param[]) =>
        (await c.query<{ id: string; seq: string }>(numbered(sql), params)).rows;
      const every = (await found(pgSearchDevices('kiosk-3'))).reverse();
      const paged: string[] = [];
      let before: string | undefined;
      for (let pages = 0; pages < 100; pages++) {
        const page = filteredDevices(viaSample, ADMIN, { limit: 50, before }, { q: 'kiosk-3', staleBefore: 0 });
        assert.match(page.sql, /ORDER BY m DESC LIMIT \?$/);
        if (pages === 0) {
          const oldPlan = await postgresPlan(c, 'old', page.sql, page.params);
          assert.match(oldPlan, /Index Only Scan Backward using device_trigrams_pkey/, oldPlan);
          assert.match(oldPlan, /Nested Loop/, oldPlan);
          assert.doesNotMatch(oldPlan, /devices_search|Merge Join|Sort/, oldPlan);
        }
        const rows = await ids(page.sql, page.params);
        paged.push(...rows.slice(0, 50).map((r) => r.id));
        if (rows.length <= 50) break;
        before = String(rows[49]?.seq);
      }
      assert.equal(every.length, 222, 'KIOSK-3, 3x, 3xx and 3xxx: five pages');
      assert.deepEqual(paged, every);
    });
  },
);

test(
  "PostgreSQL's device_trigrams holds each device's printable trigrams through inserts, renames and deletes",
  { skip: !available && SKIP_REASON },
  async () => {
    await withPostgresSchema(async (c) => {
      const names = ['Kiosk-1', 'Übersee Straße 7', 'tab\there', 'say "hi" 100%_\\', 'ab', 'İstanbul ǅ', '\u212Aelvin'];
      await c.query(
        `INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at)
         SELECT 'd_T' || n, name, 'k' || n, 'oidc:o', 'c' || n, 1 FROM unnest($1::text[]) WITH ORDINALITY AS x (name, n)`,
        [names],
      );
      const held = async () =>
        (
          await c.query<{ trigram: string; id: string }>(
            'SELECT trigram, id FROM device_trigrams JOIN devices USING (seq) ORDER BY id, trigram COLLATE "C"',
          )
        ).rows.map((r) => `${r.id} ${r.trigram}`);
      const expected = async () =>
        (
          await c.query<{ id: string; text: string }>('SELECT id, lower(id || chr(1) || name) AS text FROM devices')
        ).rows
          .flatMap((r) => [...printableTrigrams(r.text)].map((t) => `${r.id} ${t}`))
          .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      assert.ok((await held()).includes('d_T1 k-1'));
      assert.deepEqual(await held(), await expected(), 'inserted many at a time');
      await c.query("UPDATE devices SET name = 'Lobby 2' WHERE id = 'd_T1'");
      await c.query("UPDATE devices SET last_seen_at = 5, name = name WHERE id = 'd_T2'");
      assert.ok(!(await held()).includes('d_T1 k-1'), 'a renamed device loses its old trigrams');
      assert.deepEqual(await held(), await expected(), 'renamed');
      await c.query("UPDATE devices SET id = 'd_X5', name = name || chr(127) || 'x' WHERE id = 'd_T5'");
      assert.ok((await held()).includes('d_X5 d_x'), 'a new id');
      assert.deepEqual(await held(), await expected(), 'a new id, and a DEL character');
      await c.query("DELETE FROM devices WHERE id IN ('d_T3', 'd_T4')");
      assert.deepEqual(await held(), await expected(), 'deleted');
      await c.query('DELETE FROM devices');
      assert.deepEqual(await held(), [], 'none left');
      await c.query(
        "INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at) VALUES ('d_T9', 'nine', 'k', 'oidc:o', 'c', 1)",
      );
      await c.query('TRUNCATE devices CASCADE');
      assert.equal(Number((await c.query('SELECT count(*) AS n FROM device_trigrams')).rows[0].n), 0, 'truncated');
    });
  },
);

test(
  "PostgreSQL: devices enrolled before the migration 'device-trigrams' have their trigrams after it",
  { skip: !available && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    const client = new pg.Client(PG_URL);
    await client.connect();
    try {
      await migratedUpTo(client, schema, 'device-trigrams');
      await client.query(`INSERT INTO devices (id, name, name_key, owner, credential_hash, enrolled_at)
        SELECT 'd_old' || i, 'Kiosk ' || i, 'k' || i, 'oidc:o', 'c' || i, i FROM generate_series(1, 300) AS i`);
    } finally {
      await client.end();
    }
    const store = await openPostgresStore(PG_URL, { schema });
    try {
      const check = new pg.Client(PG_URL);
      await check.connect();
      try {
        await check.query(`SET search_path = "${schema}", public`);
        const [count] = (
          await check.query(`SELECT count(*) AS n, count(*) FILTER (WHERE trigram = 'k 1') AS k1 FROM device_trigrams`)
        ).rows;
        const [rows] = (
          await check.query(`SELECT count(*) AS n FROM devices, device_trigrams_of(lower(id || chr(1) || name)) AS g`)
        ).rows;
        assert.ok(Number(count?.n) > 3000, String(count?.n));
        assert.equal(Number(count?.n), Number(rows?.n), 'every trigram of every device');
        assert.equal(Number(count?.k1), 111, '"Kiosk 1", 1x and 1xx');
      } finally {
        await check.end();
      }
    } finally {
      await store.close();
    }
  },
);

test('printable trigrams: three characters of printable ASCII, anywhere in the text', () => {
  assert.deepEqual([...printableTrigrams('ab')], []);
  assert.deepEqual([...printableTrigrams('a "b')], ['a "', ' "b']);
  assert.deepEqual([...printableTrigrams('xüabc\u0001de f')], ['abc', 'de ', 'e f']);
});

test('SQLite at 20,000 devices: the rare trigrams find what the whole phrase finds, and the plan reads the index', async () => {
  await withSqliteSchema((db: DatabaseSync) => {
    db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
      INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, last_seen_at)
      SELECT 'dx_' || i, ${NAME.replace("(ARRAY['Device ', 'KIOSK-', 'Übersee ', 'host_100%\\', 'say \"hi\" '])[i % 5 + 1]", "CASE i % 5 WHEN 0 THEN 'Device ' WHEN 1 THEN 'KIOSK-' WHEN 2 THEN 'Übersee ' WHEN 3 THEN 'host_100%\\' ELSE 'say \"hi\" ' END")},
        'oidc:owner-' || (i % 100), 'c' || i, i, i FROM n`);
    // A name spelled with the Kelvin sign, which FTS5 folds into "k" and SQLite's lower() does not:
    // every form of a search in ASCII finds the same devices, with or without the sample.
    db.exec(`INSERT INTO devices (id, name, owner, credential_hash, enrolled_at, last_seen_at)
      VALUES ('dx_kelvin', '\u212AIOSK-1999', 'oidc:owner-1', 'c-kelvin', 1, 1)`);
    const all = (sql: string, ...params: Param[]) => db.prepare(sql).all(...params) as Row[];
    const sample = readSqliteSample(all);
    assert.ok(sample && sample.lowered.length > 200, 'about 256 devices drawn');
    const found = (condition: { sql: string; params: Param[] }) =>
      all(`SELECT id FROM devices WHERE ${condition.sql} ORDER BY seq`, ...condition.params).map((r) => r.id);
    let driven = 0;
    for (const q of QUERIES) {
      const condition = sqliteSearchDevices(q, false, sample);
      if (condition.sql.includes('instr')) driven++;
      const whole = found(sqliteSearchDevices(q));
      assert.deepEqual(found(condition), whole, q);
      if (q === 'device 1234') assert.equal(whole.length, 2, 'Device 12340 and Device 12345');
    }
    assert.ok(driven >= 6, `most of these queries are driven by rare trigrams (${driven})`);
    const condition = sqliteSearchDevices('device 1234', false, sample);
    assert.doesNotMatch(String(condition.params[0]), /dev|evi|vic|ice/, 'none of the common trigrams');
    const plan = sqlitePlan(db, `SELECT seq, id FROM devices WHERE ${condition.sql} ORDER BY seq DESC LIMIT 51`);
    assert.match(plan, /SEARCH devices USING INTEGER PRIMARY KEY .*SCAN devices_search VIRTUAL TABLE INDEX/, plan);
    assert.doesNotMatch(plan, /SCAN devices( |$|\|)/, plan);
    // An administrator's list newest first walks the index's matches from the cursor: page after
    // page, the same devices in the same order as every match sorted.
    const viaSample = { searchDevices: (q: string) => sqliteSearchDevices(q, false, sample) } as Sql;
    for (const q of ['device 1', 'device 1234', 'kiosk-19', 'say "hi" 7']) {
      const every = found(sqliteSearchDevices(q)).reverse();
      const paged: string[] = [];
      let before: string | undefined;
      for (let pages = 0; pages < 1000; pages++) {
        const page = filteredDevices(viaSample, ADMIN, { limit: 50, before }, { q, staleBefore: 0 });
        assert.match(page.sql, /FROM \(SELECT rowid AS m FROM devices_search/, q);
        const rows = all(page.sql, ...page.params);
        paged.push(...rows.slice(0, 50).map((r) => String(r.id)));
        if (rows.length <= 50) break;
        before = String(rows[49]?.seq);
      }
      assert.ok(every.length > 0, q);
      assert.deepEqual(paged, every, q);
    }
    // "device 1": no trigram is rare, and the walk reads at most two of the least common (each held
    // by about a fifth of these devices, which the random sample ranks either way), never the phrase.
    const terms = String(sqliteSearchDevices('device 1', false, sample).walk?.matchParams[0]).split(' AND ');
    assert.ok(terms.length >= 1 && terms.length <= 2, terms.join(' AND '));
    for (const term of terms) assert.ok(['"ce "', '"dev"', '"e 1"', '"evi"', '"vic"', '"ice"'].includes(term), term);
    const later = filteredDevices(viaSample, ADMIN, { limit: 50, before: '15000' }, { q: 'device 1', staleBefore: 0 });
    const laterPlan = sqlitePlan(db, later.sql);
    assert.match(
      laterPlan,
      /^SCAN devices_search VIRTUAL TABLE INDEX 192:M\d+<\|SEARCH devices USING INTEGER PRIMARY KEY/,
      laterPlan,
    );
    assert.doesNotMatch(laterPlan, /TEMP B-TREE/, laterPlan);
    // An id every device holds: the devices walked newest first, each checked, no index of matches.
    const dense = sqliteSearchDevices('DX_', false, sample);
    assert.deepEqual(dense, { sql: 'instr(lower(id || char(1) || name), ?) > 0', params: ['dx_'] });
    const walk = sqlitePlan(db, `SELECT seq, id FROM devices WHERE ${dense.sql} ORDER BY seq DESC LIMIT 51`);
    assert.match(walk, /^SCAN devices$/, walk);
  });
});

test(
  'PostgreSQL: a search is planned for its pattern each time (unnamed), never settled on a generic plan; other statements are prepared by name',
  { skip: !available && SKIP_REASON },
  async () => {
    const db = await openPgDb(PG_URL, { schema: freshSchema(), poolSize: 1 });
    try {
      const search = filteredDevices(
        db.sql,
        { subject: 'local:admin', admin: true },
        { limit: 50 },
        { q: 'device 1234', staleBefore: 0 },
      );
      // More than the five custom plans after which PostgreSQL weighs a generic one.
      for (let i = 0; i < 8; i++) await db.sql.arrays(search.sql, ...search.params);
      await db.sql.all('SELECT count(*) AS n FROM devices WHERE owner = ?', 'oidc:ann');
      const prepared = await db.sql.all(
        "SELECT name, statement FROM pg_prepared_statements WHERE name LIKE 'paddock_%'",
      );
      assert.ok(
        prepared.some((p) => String(p.statement).includes('owner = $1')),
        'a plain statement is prepared by name',
      );
      assert.deepEqual(
        prepared.filter((p) => String(p.statement).includes('chr(1)')),
        [],
        'no search statement is',
      );
    } finally {
      await db.end();
    }
  },
);
