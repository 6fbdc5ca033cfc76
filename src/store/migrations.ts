/**
 * Migrations are known by name in both backends (each backend's migrations.ts lists its own, in
 * order) and recorded in the table `migrations`. Never edit a released entry: add a new one.
 */

/** A migration, known by name in both backends, applied once in list order. */
export interface Migration {
  name: string;
  sql: string;
}

/**
 * What to apply: the known migrations not yet applied, in order. A name the build does not know
 * means the store was migrated by a newer build: refused, never half-used.
 */
export function pendingMigrations(known: readonly Migration[], applied: readonly string[]): Migration[] {
  const names = new Set(known.map((m) => m.name));
  const unknown = applied.filter((name) => !names.has(name));
  if (unknown.length > 0) throw new Error(newerSchema(applied.length, known.length, unknown));
  const done = new Set(applied);
  return known.filter((m) => !done.has(m.name));
}

/**
 * Stores first migrated by builds that numbered their migrations (schema_migrations) are carried
 * over to names; that table then holds only this version, which such builds take for a newer
 * schema and refuse rather than migrate again.
 */
export const NUMBERED_SENTINEL = 1_000_000;

/** The name of a migration applied as number `version` by a build that numbered them. */
export function numberedName(numbered: readonly string[], version: number): string {
  const name = numbered[version - 1];
  if (name === undefined)
    throw new Error(
      `the store's schema is newer than this build (numbered migration ${version}); run the newer Paddock or restore a backup`,
    );
  return name;
}

/**
 * The schema version of a store is the number of migrations applied to it (released entries are
 * never edited or removed, so it only grows); a build's is the number it knows.
 */
export function newerSchema(storeVersion: number, buildVersion: number, unknown: readonly string[]): string {
  return `the store's schema is version ${storeVersion}, newer than this build's ${buildVersion} (it has migration ${unknown
    .slice(0, 3)
    .map((n) => `"${n}"`)
    .join(', ')}); run the newer Paddock or restore a backup made before the upgrade`;
}
