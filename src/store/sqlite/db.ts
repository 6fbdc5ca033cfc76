/**
 * The SQLite store's database: opened (connection.ts), migrated by name in one transaction, and
 * its cached statements and transactions. One connection does every read and write: node:sqlite is
 * synchronous, so one connection is one writer and SQLITE_BUSY cannot arise inside a process.
 */
import { sqliteIndexWords, sqliteRunCandidates } from './run_words.ts';
import { sqliteDeviceSearch } from './device_search.ts';
import type { DatabaseSync } from 'node:sqlite';
import { isStorageFull, StoreError } from '../errors.ts';
import { numberedName, NUMBERED_SENTINEL, pendingMigrations } from '../migrations.ts';
import { fanOutSql, noteStatement } from '../outbox.ts';
import type { Param, Row, Sql } from '../sql.ts';
import { connect, prepareFiles } from './connection.ts';
import { migrations, numberedMigrations } from './migrations.ts';
import type { DiskReserve } from './reserve.ts';

/** Opens (creating if needed) `<dataDir>/paddock.db`; `:memory:` opens a private in-memory database. */
export function openDb(dataDir: string | ':memory:'): Db {
  const { path, reserve } = prepareFiles(dataDir);
  let db: DatabaseSync;
  try {
    db = connect(path);
    migrate(db);
  } catch (err) {
    throw new StoreError('open', `unable to open ${path}`, err);
  }
  return new Db(db, reserve);
}

/**
 * Applies the migrations not yet applied, by name, in one transaction. A store migrated while
 * migrations were numbered (schema_migrations) is carried over to names first.
 */
function migrate(db: DatabaseSync): void {
  db.exec('CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at INTEGER NOT NULL) STRICT');
  db.exec('BEGIN IMMEDIATE');
  try {
    adoptNumbered(db);
    const applied = db.prepare('SELECT name FROM migrations').all() as Array<{ name: string }>;
    const record = db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?)');
    for (const m of pendingMigrations(
      migrations,
      applied.map((r) => r.name),
    )) {
      db.exec(m.sql);
      record.run(m.name, Date.now());
    }
    db.exec('COMMIT');
  } catch (err) {
    if (db.isTransaction) db.exec('ROLLBACK');
    throw err;
  }
}

/**
 * Stores migrated while migrations were numbered: each version becomes its name, and
 * schema_migrations is left holding only NUMBERED_SENTINEL, which builds that still read numbers
 * take for a newer schema and refuse.
 */
function adoptNumbered(db: DatabaseSync): void {
  const exists = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
  if (!exists) return;
  const versions = db
    .prepare('SELECT version FROM schema_migrations WHERE version <> ?')
    .all(NUMBERED_SENTINEL) as Array<{
    version: number;
  }>;
  const record = db.prepare('INSERT INTO migrations (name, applied_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING');
  for (const { version } of versions) record.run(numberedName(numberedMigrations, version), Date.now());
  db.exec('DELETE FROM schema_migrations');
  db.prepare('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)').run(NUMBERED_SENTINEL, Date.now());
}

/** Statements prepared once and reused; every call is synchronous. */
export class Db {
  #db: DatabaseSync;
  #statements = new Map<string, ReturnType<DatabaseSync['prepare']>>();
  #arrayStatements = new Map<string, ReturnType<DatabaseSync['prepare']>>();

  #reserve: DiskReserve | undefined;
  /** The device search, with its sample of the fleet (sqlite/device_search.ts). */
  #search = sqliteDeviceSearch((sql, ...params) => this.all(sql, ...params));

  constructor(db: DatabaseSync, reserve?: DiskReserve) {
    this.#db = db;
    this.#reserve = reserve;
  }

  #q(sql: string) {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  get(sql: string, ...params: Param[]): Row | undefined {
    return this.#q(sql).get(...params) as Row | undefined;
  }

  all(sql: string, ...params: Param[]): Row[] {
    return this.#q(sql).all(...params) as Row[];
  }

  /**
   * Rows as arrays of column values in SELECT order: for the list queries on request paths, where
   * reading 51 rows as arrays costs less than half of reading them as objects.
   */
  allArrays(sql: string, ...params: Param[]): unknown[][] {
    let statement = this.#arrayStatements.get(sql);
    if (!statement) {
      statement = this.#db.prepare(sql);
      statement.setReturnArrays(true);
      this.#arrayStatements.set(sql, statement);
    }
    return statement.all(...params) as unknown as unknown[][];
  }

  /** Runs a statement; returns the number of rows it changed. */
  run(sql: string, ...params: Param[]): number {
    const changes = Number(this.#q(sql).run(...params).changes);
    this.#reserve?.refill();
    return changes;
  }

  /** A write that must go through on a full disk: once the disk is full it draws on the reserve. */
  critical<T>(work: () => T): T {
    try {
      return work();
    } catch (err) {
      if (isStorageFull(err) && this.#reserve?.release()) return work();
      throw err;
    }
  }

  /** The domain files' view of this connection: the same statements, answered as settled promises. */
  get sql(): Sql {
    return {
      get: async (sql, ...params) => this.get(sql, ...params),
      all: async (sql, ...params) => this.all(sql, ...params),
      arrays: async (sql, ...params) => this.allArrays(sql, ...params),
      run: async (sql, ...params) => this.run(sql, ...params),
      critical: async (sql, ...params) => this.critical(() => this.run(sql, ...params)),
      searchDevices: this.#search,
      runCandidates: sqliteRunCandidates,
      indexWords: sqliteIndexWords,
      noted: async (notes, sql, ...params) =>
        this.critical(() =>
          this.transaction(() => {
            const rows = this.all(sql, ...params);
            for (const n of notes(rows)) {
              const [s, p] = noteStatement(n);
              this.run(s, ...p);
            }
            return rows;
          }),
        ),
      atomically: async (statements) => this.transaction(() => statements.map(([s, p]) => this.run(s, ...p))),
      skipLocked: '',
      limitEachArm: false,
      fanOut: fanOutSql.sqlite,
    };
  }

  /** Synchronous on the one connection: nothing else runs between BEGIN and COMMIT. */
  transaction<T>(work: () => T): T {
    this.#db.exec('BEGIN IMMEDIATE');
    try {
      const result = work();
      this.#db.exec('COMMIT');
      return result;
    } catch (err) {
      // SQLite has already rolled back after some failures (a full disk at COMMIT): a ROLLBACK then
      // fails with "no transaction is active", which must not hide the real cause.
      if (this.#db.isTransaction) this.#db.exec('ROLLBACK');
      throw err;
    }
  }

  /** Work inside a transaction that is undone alone when it throws; the transaction goes on. */
  savepoint<T>(work: () => T): T {
    this.#db.exec('SAVEPOINT item');
    try {
      const result = work();
      this.#db.exec('RELEASE item');
      return result;
    } catch (err) {
      if (this.#db.isTransaction) {
        this.#db.exec('ROLLBACK TO item');
        this.#db.exec('RELEASE item');
      }
      throw err;
    }
  }

  close(): void {
    this.#statements.clear();
    this.#arrayStatements.clear();
    if (this.#db.isOpen) this.#db.close();
  }
}
