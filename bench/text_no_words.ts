/**
 * The baseline of bench/run_text.ts's upload rows: `paddock serve` as it is, but its store opened
 * with `indexRunWords: false` (runs stored without their words in the search index). Loaded with
 * `node --import bench/text_no_words.ts bin/paddock.js serve`: a module hook rewrites the two
 * calls of src/store/open.ts that open the store, and nothing else; it fails loudly if they moved.
 */
import { registerHooks } from 'node:module';

const OPEN = '/src/store/open.ts';
const CALLS: Array<[string, string]> = [
  ['openSqliteStore(config.dataDir)', 'openSqliteStore(config.dataDir, { indexRunWords: false })'],
  [
    'openPostgresStore(config.databaseUrl, { poolSize: config.databasePool })',
    'openPostgresStore(config.databaseUrl, { poolSize: config.databasePool, indexRunWords: false })',
  ],
];

registerHooks({
  load(url, context, nextLoad) {
    const loaded = nextLoad(url, context);
    if (!url.endsWith(OPEN) || loaded.source === undefined) return loaded;
    let source = String(loaded.source);
    for (const [from, to] of CALLS) {
      if (!source.includes(from)) throw new Error(`bench/text_no_words.ts: ${OPEN} no longer calls ${from}`);
      source = source.replace(from, to);
    }
    process.stderr.write('text_no_words: store opened with indexRunWords: false\n');
    return { ...loaded, source };
  },
});
