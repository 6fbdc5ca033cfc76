// The retention sweep across two real `paddock serve` processes on one PostgreSQL database: while
// a third holder has the sweep lease neither instance deletes anything; once it is released the
// expired runs go, each exactly once, in `runs.swept` records that add up to what was uploaded.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { SWEEP_LEASE } from '../../src/sweep/retention.ts';
import { paddock, type PaddockProcess } from '../support/process.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';
import { consoleClient } from './client.ts';

const available = await postgresAvailable();
const password = 'retention instances password';
const { upload, device } = consoleClient(() => password);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test(
  'two instances: one sweep lease for both; expired runs are deleted once, counted once',
  { skip: !available && SKIP_REASON, timeout: 60_000 },
  async () => {
    const database = await freshDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'paddock-retention-'));
    const processes: PaddockProcess[] = [];
    const sql = <T>(text: string, params: unknown[] = []) =>
      admin(async (c) => (await c.query(text, params)).rows as T[], database);
    try {
      const start = async (name: string) => {
        const p = paddock(['serve'], {
          PADDOCK_LISTEN: '127.0.0.1:0',
          PADDOCK_BASE_URL: 'http://127.0.0.1:8080',
          PADDOCK_DATA_DIR: join(dir, name),
          ...sharedDatabaseEnv(databaseUrl(database), dir),
          PADDOCK_ADMIN_PASSWORD: password,
          PADDOCK_RETENTION_FULL: '2s',
          PADDOCK_SWEEP_INTERVAL: '1s',
        });
        processes.push(p);
        return (await p.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
      };
      const [a, b] = await Promise.all([start('a'), start('b')]);
      // A third holder takes the lease for an hour before any run is stored.
      await sql("INSERT INTO leases (name, holder, until) VALUES ($1, 'outsider', $2)", [
        SWEEP_LEASE,
        Date.now() + 3_600_000,
      ]);
      const d = await device(a);
      const ids = Array.from({ length: 30 }, (_, i) => `r${i}`);
      for (const [i, id] of ids.entries()) assert.equal((await upload(i % 2 ? b : a, d.credential, id)).status, 201);
      const count = async () => Number((await sql<{ n: string }>('SELECT count(*) AS n FROM runs'))[0]?.n);
      await sleep(4_000);
      assert.equal(await count(), 30, 'expired, but the lease is held elsewhere: nothing deleted');
      await sql('DELETE FROM leases WHERE name = $1', [SWEEP_LEASE]);
      for (let i = 0; i < 100 && (await count()) > 0; i++) await sleep(100);
      assert.equal(await count(), 0, 'swept once the lease was free');
      await sleep(1_500);
      const swept = processes.flatMap((p) =>
        p
          .output()
          .stdout.split('\n')
          .filter((line) => line.includes('"runs.swept"'))
          .map((line) => JSON.parse(line) as { account: string; full: number; redacted: number; bytes: number }),
      );
      assert.ok(swept.length >= 1);
      assert.ok(swept.every((r) => r.account === 'system' && r.redacted === 0));
      assert.equal(
        swept.reduce((n, r) => n + r.full, 0),
        30,
        'every run counted once',
      );
      const trail = await sql<{ detail: string }>("SELECT detail FROM audit WHERE event = 'runs.swept'");
      assert.equal(trail.length, swept.length, 'one audit record per sweep that deleted');
      const last = await sql<{ value: string }>("SELECT value FROM settings WHERE name = 'retention.last_sweep'");
      assert.equal(JSON.parse(last[0]?.value ?? '{}').result, 'ok');
    } finally {
      for (const p of processes) p.child.kill('SIGTERM');
      await Promise.all(processes.map((p) => p.exited));
      await dropDatabase(database);
      await rm(dir, { recursive: true, force: true });
    }
  },
);
