// The failures table: each plain-text failure is named once, and answered as named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Hono } from 'hono';
import { fail, FAILURES, failureResponse, failureText } from '../../src/http/failures.ts';

test('failures: no two names share a status and message', () => {
  const seen = Object.values(FAILURES).map((f) => `${f.status} ${f.message}`);
  assert.equal(new Set(seen).size, seen.length);
});

test('failures: every message is one line of plain text, every status an error or a 4xx/5xx', () => {
  for (const [name, f] of Object.entries(FAILURES)) {
    assert.match(f.message, /^[^\n]+$/, name);
    assert.ok(f.status >= 400 && f.status < 600, name);
  }
});

test('failures: fail() answers the status and message, with a detail after a colon', async () => {
  const app = new Hono();
  app.get('/a', (c) => fail(c, 'runNotFound'));
  app.get('/b', (c) => fail(c, 'providerUnreachable', 'connect ECONNREFUSED'));
  const a = await app.request('/a');
  assert.equal(a.status, 404);
  assert.equal(await a.text(), 'run not found\n');
  assert.match(a.headers.get('content-type') ?? '', /^text\/plain/);
  const b = await app.request('/b');
  assert.equal(b.status, 502);
  assert.equal(await b.text(), 'identity provider unreachable: connect ECONNREFUSED\n');
});

test('failures: failureResponse() carries the security headers and extra headers', async () => {
  const res = failureResponse('starting', { 'Retry-After': '1' });
  assert.equal(res.status, 503);
  assert.equal(res.headers.get('retry-after'), '1');
  assert.equal(res.headers.get('content-security-policy'), "default-src 'none'");
  assert.equal(await res.text(), failureText('starting'));
});
