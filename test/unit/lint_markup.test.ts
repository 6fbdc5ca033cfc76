// The markup door is a lint rule (eslint.config.js): each scenario lints a snippet as if it were
// the named file and lists the rules that fire (null: a disable comment that disables nothing).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const eslint = new ESLint({ cwd: fileURLToPath(new URL('../..', import.meta.url)) });

async function firing(code: string, filePath: string): Promise<Array<string | null>> {
  const [result] = await eslint.lintText(code, { filePath });
  return [...new Set((result?.messages ?? []).map((m) => m.ruleId))];
}

const importRaw = "import { raw } from './html.ts';\n";
const scenarios: Array<{ name: string; file: string; code: string; fires: Array<string | null> }> = [
  {
    name: 'raw() outside html.ts',
    file: 'src/views/example.ts',
    code: `${importRaw}export const x = raw(String(1));\n`,
    fires: ['no-restricted-syntax'],
  },
  {
    name: 'raw() inside html.ts, the door itself',
    file: 'src/views/html.ts',
    code: 'export function raw(m: string) {\n  return m;\n}\nexport const x = raw(String(1));\n',
    fires: [],
  },
  {
    name: 'raw() imported under another name',
    file: 'src/console/example.ts',
    code: "import { raw as trust } from '../views/html.ts';\nexport { trust };\n",
    fires: ['no-restricted-syntax'],
  },
  {
    name: 'new Html() outside html.ts',
    file: 'src/console/example.ts',
    code: "import { Html } from '../views/html.ts';\nexport const x = new Html(String(1));\n",
    fires: ['no-restricted-syntax'],
  },
  {
    name: 'raw() at a named exception: a disable comment with a reason',
    file: 'src/views/example.ts',
    code: `${importRaw}// eslint-disable-next-line no-restricted-syntax -- a constant with nothing to escape\nexport const x = raw(String(1));\n`,
    fires: [],
  },
  {
    name: 'a disable comment without a reason',
    file: 'src/views/example.ts',
    code: `${importRaw}// eslint-disable-next-line no-restricted-syntax\nexport const x = raw(String(1));\n`,
    fires: ['paddock/disable-needs-reason'],
  },
  {
    name: 'a disable comment that disables nothing',
    file: 'src/views/example.ts',
    code: '// eslint-disable-next-line no-restricted-syntax -- no longer needed\nexport const x = 1;\n',
    fires: [null],
  },
  {
    name: 'markup in a plain string in the views (the old <time>)',
    file: 'src/views/example.ts',
    code: 'export const t = (iso: string) => `<time datetime="${iso}">${iso}</time>`;\n',
    fires: ['no-restricted-syntax'],
  },
  {
    name: 'markup in a plain string literal in the views (the old short note)',
    file: 'src/views/example.ts',
    code: "export const note = '<p><strong>short</strong></p>';\n",
    fires: ['no-restricted-syntax'],
  },
  {
    name: 'markup in the html tag',
    file: 'src/views/example.ts',
    code: 'import { html } from \'./html.ts\';\nexport const t = (iso: string) => html`<time datetime="${iso}">${iso}</time>`;\n',
    fires: [],
  },
  {
    name: 'c.html() with a string built by hand',
    file: 'src/console/example.ts',
    code: 'export const h = (c: { html(s: string): void }, n: string) => c.html(`<p>${n}</p>`);\n',
    fires: ['no-restricted-syntax'],
  },
  {
    name: 'innerHTML written',
    file: 'test/e2e/example.ts',
    code: 'export const set = (e: { innerHTML: string }, s: string) => {\n  e.innerHTML = s;\n};\n',
    fires: ['no-restricted-syntax'],
  },
];

for (const s of scenarios) {
  test(`markup lint: ${s.name} (${s.file})`, async () => {
    assert.deepEqual(await firing(s.code, s.file), s.fires);
  });
}
