// The JSON API's writes on the real `paddock serve` process (the suite of issue G): a SIGTERM while
// API deletes are in flight finishes them and exits 0, and kill -9 during them loses no delete the
// API acknowledged (204), nor any run it did not delete; each acknowledged delete is audited.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { consoleClient } from '../multi/client.ts';
import { paddock, type PaddockProcess } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import { PROCESS_PASSWORD, serveEnv, signInAndEnroll } from './process_load.ts';

/** One API delete over its own connection: the status, or 0 when the connection failed. */
function apiDelete(port: number, token: string, device: string, id: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'DELETE',
        path: `/api/v1/runs/${device}/${id}`,
        agent: false,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end();
  });
}

/**
 * Four clients deleting `ids` in turn until they run out or the server goes away; `stop` is called
 * once `stopAfter` deletes are acknowledged, so the server stops in the middle of the load.
 */
async function deleteLoad(
  port: number,
  token: string,
  device: string,
  ids: string[],
  stopAfter: number,
  stop: () => void,
) {
  const acknowledged: string[] = [];
  const queue = [...ids];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        const status = await apiDelete(port, token, device, id);
        if (status === 204 && acknowledged.push(id) === stopAfter) stop();
        if (status === 0) return;
      }
    }),
  );
  return { acknowledged, unsent: queue.length };
}

async function setUp(port: number, runs: number) {
  const { device, credential } = await signInAndEnroll(port);
  const base = `http://127.0.0.1:${port}`;
  const ids = Array.from({ length: runs }, (_, i) => `api-${i}`);
  for (const id of ids) {
    const res = await fetch(`${base}/v1/runs/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'minimal' },
      body: `payload of ${id}`,
    });
    assert.equal(res.status, 201);
  }
  const token = await consoleClient(() => PROCESS_PASSWORD).accessToken(base, 'lifecycle');
  return { device, ids, token };
}

/** After a restart: each id's run is there (200) or gone (404), through the API. */
async function present(port: number, token: string, device: string, ids: string[]) {
  const there: string[] = [];
  for (const id of ids) {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/runs/${device}/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.ok(res.status === 200 || res.status === 404, `${id}: ${res.status}`);
    if (res.status === 200) there.push(id);
  }
  return there;
}

async function audited(port: number, token: string, device: string): Promise<Set<string>> {
  const runs = new Set<string>();
  let next: string | undefined;
  do {
    const res = await fetch(
      `http://127.0.0.1:${port}/api/v1/audit?event=run.deleted&device=${device}${next ? `&before=${next}` : ''}`,
      { headers: { authorization: `Bearer ${token}` } },
    );
    const page = (await res.json()) as { items: Array<{ run: string }>; next?: string };
    for (const r of page.items) runs.add(r.run);
    next = page.next;
  } while (next !== undefined);
  return runs;
}

/**
 * A server stopped by `signal` once 30 of 100 API deletes are acknowledged (20 more runs nobody
 * deletes), then started again: what was acknowledged, which runs are there now, and the exit code.
 */
async function stopMidway(signal: NodeJS.Signals, check: (r: Midway) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-api-stop-'));
  const port = await freePort();
  let p: PaddockProcess = paddock(['serve'], serveEnv(dir, port));
  try {
    await p.waitFor(/serving on/);
    const { device, ids, token } = await setUp(port, 120);
    const server = p;
    const load = await deleteLoad(port, token, device, ids.slice(0, 100), 30, () => server.child.kill(signal));
    const code = await p.exited;
    assert.ok(load.unsent > 0, 'the stop came in the middle of the load');
    p = paddock(['serve'], serveEnv(dir, port));
    await p.waitFor(/serving on/);
    const there = await present(port, token, device, ids);
    assert.deepEqual(
      load.acknowledged.filter((id) => there.includes(id)),
      [],
      'no acknowledged delete came back',
    );
    assert.deepEqual(
      ids.slice(100).filter((id) => !there.includes(id)),
      [],
      'the runs nobody deleted are all there',
    );
    await check({ code, stderr: server.output().stderr, acknowledged: load.acknowledged, port, token, device });
  } finally {
    p.child.kill('SIGKILL');
    await p.exited;
    await rm(dir, { recursive: true, force: true });
  }
}

interface Midway {
  code: number | null;
  stderr: string;
  acknowledged: string[];
  port: number;
  token: string;
  device: string;
}

test('SIGTERM while API deletes are in flight: they finish, exit 0, each acknowledged delete kept and audited', () =>
  stopMidway('SIGTERM', async ({ code, stderr, acknowledged, port, token, device }) => {
    assert.equal(code, 0, stderr);
    const trail = await audited(port, token, device);
    assert.deepEqual(
      acknowledged.filter((id) => !trail.has(id)),
      [],
      'each acknowledged delete is in the audit trail',
    );
  }));

test('kill -9 during API deletes: no acknowledged delete is lost, no other run is', () =>
  stopMidway('SIGKILL', async () => undefined));
