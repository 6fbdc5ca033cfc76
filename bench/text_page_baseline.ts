/**
 * bench/page_baseline_server.ts from another working directory (BENCH_BASELINE_CWD): on PostgreSQL
 * it opens the store as `paddock serve` does, with the seal key of its default data directory
 * (`data/seal.key`, relative), which bench/run_text.ts keeps in a directory of its own.
 */
process.chdir(process.env.BENCH_BASELINE_CWD ?? '.');
await import('./page_baseline_server.ts');
