/**
 * `paddock backup FILE` and `paddock restore FILE` for the SQLite store (PostgreSQL has pg_dump
 * and pg_restore, see the README).
 *
 * backup: a consistent copy while the server runs, through SQLite's online backup (node:sqlite),
 * every page in one step, so the copy is one moment of the database even while uploads go on.
 * It is written beside FILE and linked to its name when whole: never half a file, never over one.
 *
 * restore: refused while a server holds the store. The file must pass its integrity check and
 * hold a schema this build can use; the database it replaces is kept beside it, with its log.
 */
import {
  chmodSync,
  closeSync,
  constants,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  statSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { backup, DatabaseSync } from 'node:sqlite';
import { type Config, loadConfig } from '../config/config.ts';
import { ConfigError } from '../config/parse.ts';
import { serverHolding } from '../server/pid_file.ts';
import { readSealKey, SealKeyError } from '../crypto/seal_key.ts';
import { checkOpens, SEAL_CHECK_SETTING, settingsKey } from '../store/sealed_settings.ts';
import { schemaRefusal, sqliteSchema, storedSetting } from '../store/schema.ts';
import { databaseFile, integrityFault } from '../store/sqlite/connection.ts';

export const backupHelp = `Usage: paddock backup FILE

Writes a consistent copy of the SQLite store in PADDOCK_DATA_DIR to FILE while the server runs
(FILE must not exist). For a PostgreSQL store (PADDOCK_DATABASE_URL), use pg_dump (see README).
The copy holds the store's secrets sealed: the seal key file (PADDOCK_SEAL_KEY_FILE) is not in it.
Keep a copy of that file too, apart from the backups: a restored store starts only with it.
Exit codes: 0 written; 1 the copy failed; 2 a usage or configuration mistake.
`;

export const restoreHelp = `Usage: paddock restore FILE

Replaces the SQLite store in PADDOCK_DATA_DIR with FILE, a copy made by paddock backup. Refused
while a server holds the store. FILE must pass its integrity check and hold a schema this build
can use. The database it replaces is kept as paddock.db.before-restore-<time> (with its log).
A backup whose secrets are sealed is restored only where PADDOCK_SEAL_KEY_FILE is their seal key.
Exit codes: 0 restored; 1 refused (a server runs, or FILE is not a usable store); 2 a usage or
configuration mistake, or the seal key file is missing or not the backup's.
`;

/** Every page in one step: the copy is a single read transaction, so a consistent snapshot. */
const ALL_PAGES = 2 ** 31 - 1;

class Refusal extends Error {
  readonly code: number;
  constructor(message: string, code = 1) {
    super(message);
    this.code = code;
  }
}

export async function backupCommand(args: string[]): Promise<number> {
  return run('backup', args, async (config, file) => {
    const source = databaseFile(config.dataDir);
    if (!existsSync(source)) throw new Refusal(`there is no store in ${config.dataDir} to back up`);
    if (existsSync(file)) throw new Refusal(`${file} exists; choose a new file name`);
    const partial = join(dirname(file), `.${basename(file)}.partial-${process.pid}`);
    // The store holds the session keys, the control private key and the password hash: so does the copy.
    closeSync(openSync(partial, 'wx', 0o600));
    const db = new DatabaseSync(source, { readOnly: true });
    try {
      await backup(db, partial, { rate: ALL_PAGES });
      selfContained(partial);
      check(partial);
      linkSync(partial, file);
    } finally {
      db.close();
      for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(partial + suffix, { force: true });
    }
    const { version } = sqliteSchema(file) ?? { version: 0 };
    process.stdout.write(`paddock: wrote ${file} (${statSync(file).size} bytes, schema version ${version})\n`);
    process.stderr.write(
      `paddock backup: the seal key ${config.sealKeyFile} is not in the backup: keep a copy of it too, apart from the backups; the store's secrets open only with it\n`,
    );
  });
}

export async function restoreCommand(args: string[]): Promise<number> {
  return run('restore', args, async (config, file) => {
    const pid = serverHolding(config.dataDir);
    if (pid !== undefined)
      throw new Refusal(`a server (pid ${pid}) holds the store in ${config.dataDir}; stop it, then restore`);
    if (!existsSync(file)) throw new Refusal(`${file} does not exist`);
    check(file);
    await sealedWith(file, config.sealKeyFile);
    const target = databaseFile(config.dataDir);
    mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
    // Copied next to the database first, so the swap below is two renames on one filesystem.
    const incoming = `${target}.restoring-${process.pid}`;
    copyFileSync(file, incoming, constants.COPYFILE_EXCL);
    chmodSync(incoming, 0o600);
    const kept = `${target}.before-restore-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    try {
      if (existsSync(target)) keepAside(target, kept);
      // One rename replaces the database: at every moment there is a whole one in place.
      renameSync(incoming, target);
      for (const suffix of ['-wal', '-shm']) rmSync(target + suffix, { force: true });
    } finally {
      rmSync(incoming, { force: true });
    }
    process.stdout.write(
      `paddock: restored ${file} into ${config.dataDir}${existsSync(kept) ? `; the previous database is ${kept}` : ''}\n`,
    );
  });
}

/**
 * Keeps the current database as `kept`. Its write-ahead log is folded in first (a checkpoint that
 * empties it), so the kept file is whole and no log is left
 * that would be replayed into the restored one; the database itself stays in place, linked, until
 * the restored file replaces it. A database too damaged to open leaves with its files as they are.
 */
function keepAside(target: string, kept: string): void {
  try {
    const db = new DatabaseSync(target);
    try {
      const { busy } = db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy: number };
      if (busy !== 0) throw new Refusal(`${target} is busy: is a server still using it?`);
    } finally {
      db.close();
    }
  } catch (err) {
    if (err instanceof Refusal) throw err;
    for (const suffix of ['-wal', '-shm']) if (existsSync(target + suffix)) renameSync(target + suffix, kept + suffix);
  }
  linkSync(target, kept);
}

/** Reads the configuration and the one FILE argument; maps failures to exit codes and one line. */
async function run(
  verb: string,
  args: string[],
  work: (config: Config, file: string) => Promise<void>,
): Promise<number> {
  try {
    if (args.length !== 1 || args[0]?.startsWith('-')) throw new Refusal(`usage: paddock ${verb} FILE`, 2);
    const config = loadConfig(process.env);
    if (config.databaseUrl !== undefined)
      throw new Refusal(
        `the store is PostgreSQL (PADDOCK_DATABASE_URL): use pg_dump and pg_restore, as the README shows`,
        2,
      );
    await work(config, resolve(args[0] ?? ''));
    return 0;
  } catch (err) {
    const code = err instanceof Refusal ? err.code : err instanceof ConfigError ? 2 : 1;
    process.stderr.write(`paddock ${verb}: ${(err as Error).message}\n`);
    return code;
  }
}

/**
 * The copy keeps the store's write-ahead-log mode in its header; a rollback journal instead makes
 * it one self-contained file that opens read-only anywhere, and restores as it is.
 */
function selfContained(file: string): void {
  const db = new DatabaseSync(file);
  try {
    db.exec('PRAGMA journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/**
 * A backup whose secrets are sealed (docs/contract.md section 23) opens only with its seal key: one
 * restored beside another key would refuse to start, so it is refused here, before anything moves.
 */
async function sealedWith(file: string, keyFile: string): Promise<void> {
  const check = await storedSetting({ databaseUrl: undefined, sqlitePath: file }, SEAL_CHECK_SETTING);
  if (check === undefined) return;
  let root: Buffer;
  try {
    root = readSealKey(keyFile);
  } catch (err) {
    if (!(err instanceof SealKeyError)) throw err;
    const why =
      err.fault === 'missing' ? `${err.message}, and ${file} holds secrets sealed under a seal key` : err.message;
    throw new Refusal(`PADDOCK_SEAL_KEY_FILE: ${why}: put the backup's seal key file in place first`, 2);
  }
  if (!checkOpens(settingsKey(root), check))
    throw new Refusal(
      `PADDOCK_SEAL_KEY_FILE: ${keyFile} is not the seal key ${file} was sealed with: put the backup's seal key file in place first`,
      2,
    );
}

/** FILE is a whole SQLite database holding a Paddock schema this build can use. */
function check(file: string): void {
  let fault: string | undefined;
  try {
    const db = new DatabaseSync(file, { readOnly: true });
    try {
      fault = integrityFault(db, 'integrity_check');
    } finally {
      db.close();
    }
  } catch (err) {
    throw new Refusal(`${file} is not a SQLite database (${(err as Error).message})`);
  }
  if (fault) throw new Refusal(`${file} fails its integrity check: ${fault}`);
  const schema = sqliteSchema(file);
  if (!schema || schema.version === 0) throw new Refusal(`${file} holds no Paddock store`);
  const refusal = schemaRefusal(schema);
  if (refusal) throw new Refusal(refusal);
}
