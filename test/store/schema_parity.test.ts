// Both backends hold the same schema: the same tables, columns, keys and indexes, with type
// families that match. What may differ is listed, with its reason.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { admin, dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

/** Differences between the backends that are meant, each with its reason. */
const ALLOWED: Record<string, { sqlite: string; postgres: string; why: string }> = {
  'column runs.chunked': { sqlite: 'int', postgres: 'bool', why: 'SQLite has no boolean type; both bind 1 and 0' },
};

/** Indexes of the same name shaped per backend for its planner, each with its reason. */
const ALLOWED_INDEXES: Record<string, { sqlite: string; postgres: string; why: string }> = Object.fromEntries(
  ['full', 'redacted', 'minimal'].map((level) => [
    `runs_retention_${level}`,
    {
      sqlite: `runs_retention_${level} on runs(privacy, uploaded_at, seq, size)`,
      postgres: `runs_retention_${level} on runs(uploaded_at, seq, size)`,
      why: "partial (privacy = level): SQLite's planner wants an equality, PostgreSQL's an upload-time order",
    },
  ]),
);

/**
 * The device search is the one structure written per backend (store/sql.ts, searchDevices): an
 * FTS5 trigram table on SQLite (a virtual table and its shadow tables), a pg_trgm GIN index on
 * PostgreSQL. Both are named `devices_search`; each side must have its own. PostgreSQL also keeps
 * device_trigrams, FTS5's lists in rowid order, which its GIN index has not.
 */
const SEARCH = 'devices_search';

/**
 * The search across runs likewise (store/sql.ts, runCandidates): the FTS5 table run_words (and
 * its shadow tables) on SQLite, the column runs.words and its GIN index runs_words on PostgreSQL.
 */
const RUN_WORDS = 'run_words';

interface Schema {
  /** `table.column` → type family */
  columns: Map<string, string>;
  /** `table(columns)` of each primary key and unique constraint */
  keys: Set<string>;
  /** `name on table(columns)` of each index made by a migration */
  indexes: Set<string>;
}

const family = (type: string): string => {
  const t = type.toLowerCase();
  if (/^(integer|bigint|smallint)$/.test(t)) return 'int';
  if (t === 'text') return 'text';
  if (t === 'blob' || t === 'bytea') return 'bytes';
  if (t === 'boolean') return 'bool';
  return t;
};

function sqliteSchema(db: DatabaseSync): Schema {
  const schema: Schema = { columns: new Map(), keys: new Set(), indexes: new Set() };
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as Array<{ name: string }>;
  for (const { name } of tables) {
    const columns = db.prepare(`PRAGMA table_info("${name}")`).all() as Array<{
      name: string;
      type: string;
      pk: number;
    }>;
    for (const c of columns) schema.columns.set(`${name}.${c.name}`, family(c.type));
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
    if (pk.length > 0) schema.keys.add(`${name}(${pk.map((c) => c.name).join(', ')})`);
    const indexes = db.prepare(`PRAGMA index_list("${name}")`).all() as Array<{
      name: string;
      unique: number;
      origin: string;
    }>;
    for (const index of indexes) {
      // An expression column has no name on either backend: both show it as `expr`.
      const cols = (db.prepare(`PRAGMA index_info("${index.name}")`).all() as Array<{ name: string | null }>).map(
        (c) => c.name ?? 'expr',
      );
      if (index.origin === 'c') schema.indexes.add(`${index.name} on ${name}(${cols.join(', ')})`);
      else if (index.origin === 'u' || index.origin === 'pk') schema.keys.add(`${name}(${cols.join(', ')})`);
    }
  }
  return schema;
}

async function postgresSchema(name: string): Promise<Schema> {
  return admin(async (c) => {
    const schema: Schema = { columns: new Map(), keys: new Set(), indexes: new Set() };
    const columns = await c.query(
      'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1',
      [name],
    );
    for (const r of columns.rows as Array<{ table_name: string; column_name: string; data_type: string }>)
      schema.columns.set(`${r.table_name}.${r.column_name}`, family(r.data_type));
    const indexes = await c.query(
      `SELECT t.relname AS table_name, i.relname AS index_name, x.indisunique AS is_unique,
         EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.oid) AS is_constraint,
         (SELECT string_agg(coalesce(a.attname, 'expr'), ', ' ORDER BY k.n) FROM unnest(x.indkey) WITH ORDINALITY AS k(attnum, n)
          LEFT JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum) AS columns
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
       JOIN pg_namespace s ON s.oid = t.relnamespace WHERE s.nspname = $1`,
      [name],
    );
    for (const r of indexes.rows as Array<{
      table_name: string;
      index_name: string;
      is_unique: boolean;
      is_constraint: boolean;
      columns: string;
    }>) {
      if (r.is_constraint) schema.keys.add(`${r.table_name}(${r.columns})`);
      else schema.indexes.add(`${r.index_name} on ${r.table_name}(${r.columns})`);
    }
    return schema;
  });
}

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

test(
  'schema parity: SQLite and PostgreSQL have the same tables, columns, keys and indexes, but for the allowed differences',
  { skip: !available && SKIP_REASON },
  async () => {
    const dir = await mkdtemp(join(tmpdir(), 'paddock-parity-'));
    try {
      await openSqliteStore(dir).close();
      const db = new DatabaseSync(join(dir, 'paddock.db'));
      const lite = sqliteSchema(db);
      db.close();
      const schema = freshSchema();
      await (await openPostgresStore(PG_URL, { schema })).close();
      const pg = await postgresSchema(schema);

      const liteSearch = [...lite.columns.keys()].filter(
        (c) => c.startsWith(`${SEARCH}.`) || c.startsWith(`${SEARCH}_`),
      );
      assert.ok(liteSearch.includes(`${SEARCH}.name`), 'SQLite has its FTS5 search table');
      for (const c of liteSearch) lite.columns.delete(c);
      for (const k of [...lite.keys]) if (k.startsWith(SEARCH)) lite.keys.delete(k);
      const pgSearch = [...pg.indexes].filter((i) => i === `${SEARCH} on devices(expr)`);
      assert.equal(pgSearch.length, 1, 'PostgreSQL has its trigram search index');
      pg.indexes.delete(pgSearch[0]!);
      // And its trigrams by device, walked newest first (migration 'device-trigrams').
      assert.ok(pg.columns.delete('device_trigrams.trigram') && pg.columns.delete('device_trigrams.seq'));
      assert.ok(pg.keys.delete('device_trigrams(trigram, seq)'), [...pg.keys].join('\n'));
      const liteWords = [...lite.columns.keys()].filter(
        (c) => c.startsWith(`${RUN_WORDS}.`) || c.startsWith(`${RUN_WORDS}_`),
      );
      assert.ok(liteWords.includes(`${RUN_WORDS}.words`), 'SQLite has its FTS5 table of run words');
      for (const c of liteWords) lite.columns.delete(c);
      for (const k of [...lite.keys]) if (k.startsWith(RUN_WORDS)) lite.keys.delete(k);
      assert.equal(pg.columns.get('runs.words'), 'array', 'PostgreSQL holds the words in the run');
      pg.columns.delete('runs.words');
      assert.ok(pg.indexes.delete('runs_words on runs(words)'), 'PostgreSQL has its GIN index of run words');

      assert.ok(lite.columns.size > 40 && lite.keys.size > 10 && lite.indexes.size > 8, 'the schema was read');
      assert.deepEqual([...lite.columns.keys()].sort(), [...pg.columns.keys()].sort(), 'the same columns');
      const differences: string[] = [];
      for (const [column, type] of lite.columns) {
        const other = pg.columns.get(column);
        if (other === type) continue;
        const allowed = ALLOWED[`column ${column}`];
        if (allowed?.sqlite === type && allowed.postgres === other) continue;
        differences.push(`${column}: SQLite ${type}, PostgreSQL ${other}`);
      }
      assert.deepEqual(differences, [], 'type families match');
      assert.deepEqual([...lite.keys].sort(), [...pg.keys].sort(), 'the same primary keys and unique constraints');
      for (const [name, { sqlite, postgres }] of Object.entries(ALLOWED_INDEXES)) {
        assert.ok(lite.indexes.delete(sqlite), `SQLite's ${name} is as allowed`);
        assert.ok(pg.indexes.delete(postgres), `PostgreSQL's ${name} is as allowed`);
      }
      assert.deepEqual([...lite.indexes].sort(), [...pg.indexes].sort(), 'the same indexes');
      for (const [what, { sqlite }] of Object.entries(ALLOWED))
        assert.equal(lite.columns.get(what.replace(/^column /, '')), sqlite, `${what} is still a difference`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
