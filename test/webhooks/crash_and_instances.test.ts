/**
 * At least once, through crashes and across instances (docs/contract.md section 13): an action
 * done by a process that is then killed with SIGKILL, before any delivery, is delivered by the
 * next process on the store; two senders on one PostgreSQL store deliver each message once.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { testWebhook } from '../../src/actions/webhooks.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { ADMIN, endpoint, enrolled, receiver, sender, webhookDeps } from './world.ts';

const CHILD = `
import { revokeDevice } from './src/actions/devices.ts';
import { openSqliteStore } from './src/store/sqlite/store.ts';
import { memoryLogger } from './src/log/logger.ts';
import { systemClock } from './src/clock.ts';
const store = openSqliteStore(process.argv[1]);
const outcome = await revokeDevice({ store, logger: memoryLogger(), clock: systemClock },
  { subject: 'local:admin', admin: true, client: '192.0.2.1' }, 'dev-crashed1');
process.stdout.write(outcome + '\\n');
setInterval(() => {}, 1000);
`;

test('kill -9 between an action and its delivery: the next process delivers it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-hooks-'));
  let secret = '';
  const r = await receiver(() => [secret]);
  try {
    const first = openSqliteStore(dir);
    secret = (await endpoint(first, r.url, ['device.revoked'])).secret;
    await enrolled(first, 'dev-crashed1');
    await first.close();
    const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, join(dir)], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const said = await new Promise<string>((resolve) => child.stdout.once('data', (b: Buffer) => resolve(String(b))));
    assert.equal(said.trim(), 'revoked');
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    assert.equal(r.hits, 0, 'nothing was sent before the crash');
    const next = openSqliteStore(dir);
    const { sender: s } = sender(next);
    s.start();
    const [got] = await r.waitFor(1);
    await s.stop();
    assert.equal(got?.payload.type, 'device.revoked');
    assert.equal(got?.payload.data.device, 'dev-crashed1');
    await next.close();
  } finally {
    await r.close();
    await rm(dir, { recursive: true, force: true });
  }
});

const pgUp = await postgresAvailable();
test(
  'two senders on one PostgreSQL store: each message delivered once, one attempt each',
  { skip: !pgUp && SKIP_REASON },
  async () => {
    const schema = freshSchema();
    const a = await openPostgresStore(PG_URL, { schema });
    const b = await openPostgresStore(PG_URL, { schema });
    let secret = '';
    // A slow answer keeps both senders busy at once.
    const r = await receiver(
      () => [secret],
      (_n, _req, res) => {
        setTimeout(() => res.writeHead(200).end(), 20);
        return 'handled';
      },
    );
    try {
      const hook = await endpoint(a, r.url);
      secret = hook.secret;
      const messages = 60;
      for (let i = 0; i < messages; i++) await testWebhook(webhookDeps(a), ADMIN, hook.id);
      const one = sender(a, { concurrency: 4 });
      const two = sender(b, { concurrency: 4 });
      one.sender.start();
      two.sender.start();
      await r.waitFor(messages, 20_000);
      // Anything sent twice would arrive in this pause.
      await new Promise((resolve) => setTimeout(resolve, 300));
      await one.sender.stop();
      await two.sender.stop();
      const ids = r.received.map((x) => x.id);
      assert.equal(ids.length, messages);
      assert.equal(new Set(ids).size, messages, 'no message twice');
      const attempted = (l: { records: Array<Record<string, unknown>> }) =>
        l.records.filter((x) => x.event === 'webhook.attempted').length;
      assert.ok(attempted(one.logger) > 0 && attempted(two.logger) > 0, 'both instances sent');
      assert.equal(attempted(one.logger) + attempted(two.logger), messages);
    } finally {
      await r.close();
      await a.close();
      await b.close();
    }
  },
);

after(async () => {
  if (pgUp) await dropSchemas();
});
