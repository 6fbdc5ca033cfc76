// `paddock serve` installs the audit decorator and flushes it on stop: the record of the last
// request before the stop is in the store once close() resolves; uploads leave no record.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { startServer } from '../../src/server/serve.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';

test('paddock serve: a failed sign-in just before the stop is in the audit trail after it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-serve-audit-'));
  const dataDir = join(dir, 'data');
  try {
    const config = loadConfig({
      PADDOCK_LISTEN: '127.0.0.1:0',
      PADDOCK_DATA_DIR: dataDir,
      PADDOCK_ADMIN_PASSWORD: 'serve audit password',
    });
    const logger = memoryLogger();
    const server = await startServer(config, { logger, announce: () => undefined });
    const res = await fetch(`${server.url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: 'not the password' }),
    });
    assert.equal(res.status, 401);
    await server.close();
    assert.ok(logger.records.some((r) => r.event === 'login.local.failed'));
    const store = openSqliteStore(dataDir);
    const trail = (await store.auditPage({}, { limit: 10 })).items;
    await store.close();
    assert.deepEqual(
      trail.map((r) => [r.event, r.account, r.client, r.detail]),
      [['login.local.failed', 'local:admin', '127.0.0.1', 'user=admin count=1']],
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
