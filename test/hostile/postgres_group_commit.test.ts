// Uploads on PostgreSQL are stored in groups (src/store/postgres/runs.ts: one statement for the
// uploads that arrive together). kill -9 of `paddock serve` while 32 uploads of eight devices are
// in flight, three times in a row, loses no acknowledged upload: each group commits before any of
// its uploads is answered.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { paddock } from '../support/process.ts';
import { freePort } from '../support/tls_fixture.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  SKIP_REASON,
} from '../support/postgres.ts';
import { serveEnv, signInAndEnroll, uploadLoad } from './process_load.ts';

const available = await postgresAvailable();

test(
  'PostgreSQL group commit: kill -9 during uploads of eight devices, three times in a row, loses no acknowledged upload',
  { skip: available ? false : SKIP_REASON },
  async () => {
    const database = await freshDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'paddock-pg-kill-'));
    const port = await freePort();
    const env = { ...serveEnv(dir, port), PADDOCK_DATABASE_URL: databaseUrl(database) };
    let p = paddock(['serve'], env);
    try {
      await p.waitFor(/serving on/);
      const devices = [];
      for (let i = 0; i < 8; i++) devices.push(await signInAndEnroll(port));
      const acknowledged: string[][] = devices.map(() => []);
      for (let round = 0; round < 3; round++) {
        // Four at once per device, the most one device may have in flight.
        const loads = devices.map((d, i) => uploadLoad(port, d.credential, 1_000, `k${round}-${i}-`));
        await new Promise((resolve) => setTimeout(resolve, 400));
        p.child.kill('SIGKILL');
        await p.exited;
        (await Promise.all(loads)).forEach((ids, i) => acknowledged[i]?.push(...ids));
        p = paddock(['serve'], env);
        await p.waitFor(/serving on/);
      }
      assert.ok(acknowledged.flat().length > 0, 'some uploads were acknowledged');
      for (const [i, d] of devices.entries()) assert.deepEqual(await d.view(acknowledged[i] ?? []), []);
      // Rows inserted by one statement share its transaction id: fewer transactions than runs means
      // uploads were stored together, so the groups were what the kills interrupted.
      const { runs, transactions } = await admin(async (c) => {
        const { rows } = await c.query(
          "SELECT count(*)::int AS runs, count(DISTINCT xmin::text)::int AS transactions FROM runs WHERE id LIKE 'k%'",
        );
        return rows[0] as { runs: number; transactions: number };
      }, database);
      assert.ok(transactions < runs, `${runs} runs in ${transactions} transactions`);
    } finally {
      p.child.kill('SIGKILL');
      await p.exited;
      await rm(dir, { recursive: true, force: true });
      await dropDatabase(database);
    }
  },
);
