/**
 * The SQLite connection's file and settings: where the database is, kept private, refused when it
 * was emptied or is damaged, and the pragmas every connection runs with.
 */
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { StoreError } from '../errors.ts';
import { DiskReserve } from './reserve.ts';

/** The database file of a data directory. */
export function databaseFile(dataDir: string): string {
  return join(dataDir, 'paddock.db');
}

/**
 * The files of `<dataDir>/paddock.db`, made ready to open: the directory created, the file private,
 * and the disk reserve beside it; `:memory:` needs none of them.
 */
export function prepareFiles(dataDir: string | ':memory:'): { path: string; reserve: DiskReserve | undefined } {
  if (dataDir === ':memory:') return { path: ':memory:', reserve: undefined };
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const path = databaseFile(dataDir);
  const emptied = wasEmptied(path);
  if (emptied) throw new StoreError('open', `unable to open ${path}`, new Error(emptied));
  keepPrivate(path);
  return { path, reserve: new DiskReserve(join(dataDir, 'paddock.reserve')) };
}

/** A connection to the database at `path`, checked for damage, with the pragmas Paddock runs with. */
export function connect(path: string): DatabaseSync {
  const db = new DatabaseSync(path);
  checkIntegrity(db);
  // WAL first so the busy timeout and later pragmas apply to a database already in its final mode;
  // the busy timeout covers other processes (such as a backup) holding the lock briefly.
  db.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;');
  db.exec('PRAGMA synchronous = NORMAL;');
  // Statement journals and sorts in memory, never in /tmp: a container's root (and /tmp with
  // it) may be read-only, and then a transaction that needed a temporary file would fail.
  db.exec('PRAGMA temp_store = MEMORY;');
  return db;
}

/**
 * A database file that exists but holds nothing (its write-ahead log neither) was a store once:
 * SQLite would take it for a new one and start an empty installation, every device's credential
 * gone. Refused instead, with what to do. Only a file Paddock has just created is empty by right.
 */
function wasEmptied(path: string): string | undefined {
  const size = (file: string) => {
    try {
      return statSync(file).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  };
  if (size(path) !== 0 || (size(`${path}-wal`) ?? 0) > 0) return undefined;
  return 'the database file exists but is empty, so the store it held is gone: restore it from a backup, or remove the file to start a new, empty installation';
}

/**
 * A damaged file is refused at start rather than failing requests later: `PRAGMA quick_check`
 * reads every page once (about a second per GiB here) and names the first fault.
 */
function checkIntegrity(db: DatabaseSync): void {
  const fault = integrityFault(db);
  if (fault) throw new Error(`the database fails its integrity check (${fault}): restore it from a backup`);
}

/**
 * The first fault `PRAGMA quick_check` (or the slower, more thorough `integrity_check`) names, on
 * one line; undefined when the database is sound.
 */
export function integrityFault(
  db: DatabaseSync,
  pragma: 'quick_check' | 'integrity_check' = 'quick_check',
): string | undefined {
  const rows = db.prepare(`PRAGMA ${pragma}(1)`).all() as Array<Record<string, unknown>>;
  const first = String(Object.values(rows[0] ?? {})[0] ?? 'no answer')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  return first === 'ok' ? undefined : first;
}

/**
 * The database holds the session keys, the control private key and the password hash: its files
 * are made 0600 even when they existed with a wider mode (SQLite creates files with the process
 * umask, and gives its -wal and -shm files the database's mode). The data directory is created
 * 0700; one that already existed (which may be shared, such as the working directory) is left as
 * it is, since the files in it are private either way.
 */
function keepPrivate(path: string): void {
  const tighten = (file: string) => {
    if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  };
  closeSync(openSync(path, 'a', 0o600));
  tighten(path);
  for (const suffix of ['-wal', '-shm']) {
    try {
      tighten(path + suffix);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}
