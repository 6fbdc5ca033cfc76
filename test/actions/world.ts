// What the action tests share: a SQLite store in memory, a logger that keeps its records, a
// clock the test moves, the actors of docs/contract.md section 4, and devices and runs put in directly.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import type { Actor } from '../../src/domain/accounts.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import { fakeClock, type FakeClock } from '../support/fake_clock.ts';

export const ADMIN: Actor = { subject: 'local:admin', admin: true, client: '192.0.2.1' };
export const ANN: Actor = { subject: 'oidc:ann', admin: false, client: '192.0.2.7' };
export const BOB: Actor = { subject: 'oidc:bob', admin: false, client: '2001:db8::9' };

export const DAY = 86_400_000;

export interface World {
  store: Store;
  logger: ReturnType<typeof memoryLogger>;
  clock: FakeClock;
  /** The records logged so far, without the level and event written apart. */
  records(): Array<Record<string, unknown>>;
  device(owner: string, id: string, at?: number): Promise<void>;
  run(device: string, id: string, text: string): Promise<void>;
}

export async function world(body: (w: World) => Promise<void>): Promise<void> {
  const store = openSqliteStore(':memory:');
  const logger = memoryLogger();
  const clock = fakeClock();
  const w: World = {
    store,
    logger,
    clock,
    records: () => logger.records.map((r) => ({ ...r })),
    async device(owner, id, at = clock.now()) {
      await store.createEnrollToken({
        hash: `t-${id}`,
        owner,
        createdBy: 'local:admin',
        createdAt: at,
        expiresAt: at + DAY,
      });
      const made = await store.enrollDevice({
        tokenHash: `t-${id}`,
        now: at,
        deviceId: id,
        name: id,
        credentialHash: id,
      });
      assert.ok(made, `device ${id} enrolled`);
    },
    async run(device, id, text) {
      const body = new TextEncoder().encode(text);
      const stored = await store.putRun({
        device,
        id,
        contentType: 'text/plain',
        privacy: 'full',
        size: body.byteLength,
        uploadedAt: clock.now(),
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
      assert.equal(stored, 'stored', `run ${device}/${id} stored`);
    },
  };
  try {
    await body(w);
  } finally {
    await store.close();
  }
}
