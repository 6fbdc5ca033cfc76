// bench/report.ts: a full bench run rewrites the sections it measured and keeps those measured by
// their own scripts (the metrics' cost, the sweep, the API's lists, the container image).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepSeparateSections } from '../../bench/report.ts';

test('sections the run did not write are kept after the new ones; the ones it wrote are replaced', () => {
  const before = [
    '# Benchmark results\n\nold table\n',
    '## PostgreSQL\nold pg\n',
    '## Cost of the metrics\nmeasured apart\n',
    '## Where a target is missed, and why\nold analysis\n',
    '## Container image\nmeasured by the test\n',
  ].join('');
  const doc =
    '# Benchmark results\n\nnew table\n## PostgreSQL\nnew pg\n## Where a target is missed, and why\nnew analysis\n';
  assert.equal(
    keepSeparateSections(doc, before),
    `${doc.trimEnd()}\n\n## Cost of the metrics\nmeasured apart\n\n## Container image\nmeasured by the test\n`,
  );
  assert.equal(keepSeparateSections(doc, ''), doc, 'a first run writes only its own');
});
