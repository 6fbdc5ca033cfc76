// Held requests and the connection cap (docs/contract.md section 15): 10,000 slow or idle
// connections against a cap of 2,048 push each other out, never a device's held request, which is
// still answered when a collection reaches its device.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import { systemClock } from '../../src/clock.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { live } from '../support/live.ts';

const HOLDER = fileURLToPath(new URL('./hold_connections.ts', import.meta.url));
const SLOW = 10_000;

function hold(port: number, credential: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/v1/requests?wait=60',
        agent: false,
        headers: { authorization: `Bearer ${credential}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', () => resolve({ status: 0, body }));
      },
    );
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end();
  });
}

test(
  `${SLOW} slow or idle connections against a cap of 2,048 shed each other, never a held request`,
  { timeout: 120_000 },
  async () => {
    const l = await live({}, { maxConnections: 2048 });
    try {
      const devices = [];
      for (let i = 0; i < 10; i++) devices.push(await l.enroll(`held-${i}`));
      const held = devices.map((d) => hold(l.port, d.credential));
      await new Promise((r) => setTimeout(r, 300));
      const holder = spawn(process.execPath, [HOLDER, String(l.port), String(SLOW)], {
        stdio: ['pipe', 'pipe', 'inherit'],
      });
      try {
        const [line] = (await once(createInterface({ input: holder.stdout }), 'line')) as [string];
        assert.equal((JSON.parse(line) as { opened: number }).opened, SLOW);
        let settled = false;
        void Promise.all(held).then(() => (settled = true));
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(settled, false, 'no held request was shed by the load');
        // A collection reaches the devices: every held request is answered with it.
        const side = openSqliteStore(join(l.dataDir));
        const out = await createCollection(
          { store: side, logger: memoryLogger(), clock: systemClock },
          { subject: 'local:admin', admin: true, client: null },
          { privacy: 'full', reason: 'under load', scope: { devices: devices.map((d) => d.device) } },
        );
        await side.close();
        assert.ok(out.ok);
        const answers = await Promise.all(held);
        for (const a of answers) {
          assert.equal(a.status, 200);
          assert.equal((JSON.parse(a.body) as { requests: unknown[] }).requests.length, 1);
        }
      } finally {
        holder.stdin?.end();
        await once(holder, 'exit');
      }
    } finally {
      await l.close();
    }
  },
);
