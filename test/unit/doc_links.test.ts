// The documentation stays inside the repository: every relative link in README.md and docs/*.md
// names a file that exists here, every `docs/….md` a comment or document cites exists, and
// nothing points at the shared folder beside the clone.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';

const root = new URL('../../', import.meta.url).pathname;

async function files(dir: string, ext: RegExp): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await files(path, ext)));
    else if (ext.test(entry.name)) out.push(path);
  }
  return out;
}

const documents = async () => ['README.md', ...(await files('docs', /\.md$/))];

test('every relative link in README.md and docs/*.md resolves to a file in the repository', async () => {
  const broken: string[] = [];
  let links = 0;
  for (const doc of await documents()) {
    const text = await readFile(join(root, doc), 'utf8');
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target) || target.startsWith('#')) continue;
      links++;
      const file = join(root, dirname(doc), target.split('#')[0] ?? '');
      if (!existsSync(file) || relative(root, file).startsWith('..')) broken.push(`${doc}: ${target}`);
    }
  }
  assert.ok(links >= 10, `found ${links} links`);
  assert.deepEqual(broken, []);
});

test('nothing points outside the clone, and every docs/ file that is cited exists', async () => {
  const sources = [...(await documents()), ...(await files('src', /\.ts$/)), ...(await files('test', /\.ts$/))];
  const outside: string[] = [];
  const missing: string[] = [];
  for (const file of sources.filter((f) => f !== 'test/unit/doc_links.test.ts')) {
    const text = await readFile(join(root, file), 'utf8');
    if (/\.\.\/shared\/|shared\/spec\/|shared\/CONTRACT/.test(text)) outside.push(file);
    for (const [cited = ''] of text.matchAll(/\bdocs\/[a-z_-]+\.md\b/g))
      if (!existsSync(join(root, cited))) missing.push(`${file}: ${cited}`);
  }
  assert.deepEqual(outside, [], 'files that point outside the repository');
  assert.deepEqual(missing, []);
});
