// Issue 34 (security review finding 6): every request body is read through one door,
// src/http/body.ts, under one minimum rate. The door's rule, scenario by scenario (with a stricter
// rate than the default so the stalls take milliseconds), and the checks that keep it the only door:
// its readers are not exported, and nothing else in src/ reads a body.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import * as door from '../../src/http/body.ts';
import { BodyError, type BodyFailure, type BodyRead, MIN_BODY_RATE, readBody } from '../../src/http/body.ts';

const FAST = { graceMs: 50, bytesPerSecond: 1024 };
const bytes = (text: string) => new TextEncoder().encode(text);

/** A body that sends `parts` and then, unless `end`, stalls for good. */
function body(parts: string[], end: boolean): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(bytes(part));
      if (end) controller.close();
    },
  });
}

function put(stream: ReadableStream<Uint8Array>, length?: number): Request {
  return new Request('http://x/', {
    method: 'PUT',
    headers: length === undefined ? {} : { 'content-length': String(length) },
    body: stream,
    duplex: 'half',
  } as RequestInit);
}

async function outcome(req: Request, read: Partial<BodyRead> = {}): Promise<string | BodyFailure> {
  try {
    return new TextDecoder().decode(await readBody(req, { limit: 100_000, minRate: FAST, ...read }));
  } catch (err) {
    if (err instanceof BodyError) return err.code;
    throw err;
  }
}

const scenarios: Array<{ name: string; req: () => Request; read?: Partial<BodyRead>; expected: string }> = [
  { name: 'a small declared body, whole', req: () => put(body(['abc'], true), 3), expected: 'abc' },
  { name: 'a chunked body, whole', req: () => put(body(['ab', 'c'], true)), expected: 'abc' },
  {
    name: 'a long declared body, whole (read chunk by chunk)',
    req: () => put(body(['a'.repeat(2000), 'b'], true), 2001),
    expected: `${'a'.repeat(2000)}b`,
  },
  // The finding: a declared length of 1,000 sent as 5 had no timer at all.
  { name: 'a small declared body that stalls', req: () => put(body(['12345'], false), 1000), expected: 'too-slow' },
  {
    name: 'a long declared body that stalls',
    req: () => put(body(['12345'], false), 50_000),
    expected: 'too-slow',
  },
  { name: 'a chunked body that stalls', req: () => put(body(['12345'], false)), expected: 'too-slow' },
  { name: 'a small declared body that ends short', req: () => put(body(['12345'], true), 1000), expected: 'cut-short' },
  {
    name: 'a long declared body that ends short',
    req: () => put(body(['12345'], true), 50_000),
    expected: 'cut-short',
  },
  {
    name: 'a declared length above the limit',
    req: () => put(body([], false), 11),
    read: { limit: 10 },
    expected: 'too-large',
  },
  {
    name: 'a chunked body above the limit',
    req: () => put(body(['123456', '789012'], false)),
    read: { limit: 10 },
    expected: 'too-large',
  },
  {
    name: 'a small declared body refused by the budget, before a byte is read',
    req: () => put(body([], false), 10),
    read: { take: () => false },
    expected: 'over-budget',
  },
  {
    name: 'a chunked body refused by the budget',
    req: () => put(body(['123'], false)),
    read: { take: () => false },
    expected: 'over-budget',
  },
];

for (const { name, req, read, expected } of scenarios) {
  test(`the body door: ${name} -> ${expected}`, async () => {
    const started = Date.now();
    assert.equal(await outcome(req(), read), expected);
    assert.ok(Date.now() - started < 5_000, `settled after ${Date.now() - started} ms`);
  });
}

// Issue 42 (docs/contract.md section 23): 2,000 stalled bodies each declaring 64 KiB cost their
// declared length at once. A body's buffer grows with the bytes that arrived, never its declaration.
test('finding: a body declaring 256 MiB and sending 5 bytes holds 5 bytes, not its declared length', async () => {
  const declared = 256 * 2 ** 20;
  const stalled = put(body(['12345'], false), declared);
  const before = process.memoryUsage().arrayBuffers;
  const read = outcome(stalled, { limit: declared, minRate: { graceMs: 300, bytesPerSecond: 1024 } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const during = process.memoryUsage().arrayBuffers - before;
  assert.equal(await read, 'too-slow');
  assert.ok(during < 2 ** 20, `${(during / 2 ** 20).toFixed(1)} MiB held for 5 bytes`);
});

test('a long declared body whole in many chunks is joined in order, and one short by a byte is cut short', async () => {
  const parts = Array.from({ length: 40 }, (_, i) => String.fromCharCode(97 + (i % 26)).repeat(100));
  assert.equal(await outcome(put(body(parts, true), 4000)), parts.join(''));
  assert.equal(await outcome(put(body(parts, true), 4001)), 'cut-short');
});

test('a route may ask for a stricter rate than every body gets, never a looser one (a TypeError)', async () => {
  for (const minRate of [
    { ...MIN_BODY_RATE, graceMs: MIN_BODY_RATE.graceMs + 1 },
    { ...MIN_BODY_RATE, bytesPerSecond: MIN_BODY_RATE.bytesPerSecond - 1 },
  ])
    await assert.rejects(readBody(put(body(['x'], true), 1), { limit: 10, minRate }), TypeError);
  assert.equal(await outcome(put(body(['x'], true), 1), { minRate: MIN_BODY_RATE }), 'x');
});

test('the door exports only itself: the readers behind it cannot be called around its rule', () => {
  assert.deepEqual(Object.keys(door).sort(), ['BodyError', 'MIN_BODY_RATE', 'declaredLength', 'readBody']);
});

const root = fileURLToPath(new URL('../..', import.meta.url));
const DOOR = 'src/http/body.ts';
/** Where Paddock is the client: the requests there are its own, sent out, and their bodies written. */
const CLIENTS = ['src/cli/', 'src/device_client/', 'src/oidc/', 'src/webhooks/'];
/** What reads a body: the web Request's and Hono's readers, the stream itself, Hono's validator. */
const READERS = new Set(['arrayBuffer', 'text', 'json', 'formData', 'blob', 'bytes', 'parseBody', 'getReader']);
/** Names a request goes by (a response read by a client, such as the CLI's, is not one of them). */
const REQUEST = /(?:^|\.)(?:req|request|raw|incoming)$/;

/** Each place in `source` that reads a request's body other than through the door. */
function bodyReads(file: string, source: string): string[] {
  const found: string[] = [];
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const at = (node: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isPropertyAccessExpression(node)) {
      const receiver = node.expression.getText(sf).replace(/\s+/g, '');
      const name = node.name.text;
      const called = ts.isCallExpression(node.parent) && node.parent.expression === node;
      if (REQUEST.test(receiver) && (name === 'body' || (called && READERS.has(name))))
        found.push(`${at(node)}: ${receiver}.${name}`);
      const event = called && node.parent.arguments[0];
      if (name === 'on' && event && ts.isStringLiteral(event) && /^(?:data|readable)$/.test(event.text))
        if (REQUEST.test(receiver)) found.push(`${at(node)}: ${receiver}.on`);
    }
    if (ts.isForOfStatement(node) && node.awaitModifier && REQUEST.test(node.expression.getText(sf)))
      found.push(`${at(node)}: for await of ${node.expression.getText(sf)}`);
    if (ts.isImportDeclaration(node) && /^['"]hono\/validator['"]$/.test(node.moduleSpecifier.getText(sf)))
      found.push(`${at(node)}: hono/validator`);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

test('the checker below finds each way of reading a body around the door', () => {
  const source = [
    "import { validator } from 'hono/validator';",
    'await c.req.json();',
    'await c.req.text();',
    'await c.req.parseBody();',
    'await c.req.raw.arrayBuffer();',
    'const r = c.req.raw.body?.getReader();',
    'await req.formData();',
    'for await (const chunk of incoming) {}',
    "env.incoming.on('data', () => {});",
    // Not bodies of requests: an answer built, a response read by a client.
    "return c.json({}, 200); return c.text('x'); await res.json(); await response.body.getReader();",
  ].join('\n');
  assert.deepEqual(
    bodyReads('x.ts', source).map((f) => f.replace(/^x\.ts:\d+: /, '')),
    [
      'hono/validator',
      'c.req.json',
      'c.req.text',
      'c.req.parseBody',
      'c.req.raw.arrayBuffer',
      'c.req.raw.body',
      'req.formData',
      'for await of incoming',
      'env.incoming.on',
    ],
  );
});

test('no file of src/ but the door reads a request body: every route, now and later, gets its rule', () => {
  const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .filter((file) => file !== DOOR && !CLIENTS.some((folder) => file.startsWith(folder)));
  const found = files.flatMap((file) => bodyReads(file, readFileSync(join(root, file), 'utf8')));
  assert.deepEqual(found, [], `read the body with readBody (or readForm / jsonFields) from ${DOOR}`);
});
