// The search index's backfill (docs/contract.md section 21): runs stored before the index existed
// are indexed in the background, newest first, and found afterwards; binary runs stay out; the
// mark that says how far it got ends at 0, and a store migrated empty has nothing to do.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { BACKFILL_SETTING, wordsBackfill } from '../../src/control/words_backfill.ts';
import { parseTextQuery } from '../../src/domain/words.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const T0 = 1_700_000_000_000;
const ADMIN = { subject: 'local:admin', admin: true, groups: [] };
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

const stores: Array<[string, (unindexed: boolean) => Promise<Store>, string | false]> = [
  ['sqlite', async (unindexed) => openSqliteStore(':memory:', { indexRunWords: !unindexed }), false],
  [
    'postgres',
    async (unindexed) => openPostgresStore(PG_URL, { schema: freshSchema(), indexRunWords: !unindexed }),
    !available && SKIP_REASON,
  ],
];

for (const [name, open, skip] of stores)
  describe(`search index backfill: ${name}`, { skip }, () => {
    test('a store migrated empty has nothing to index', async () => {
      const store = await open(false);
      try {
        assert.equal(await store.getSetting(BACKFILL_SETTING), '1');
        assert.equal(await wordsBackfill(store).run(), 0);
      } finally {
        await store.close();
      }
    });

    test('runs stored without their words are indexed, newest first, and found', async () => {
      const store = await open(true);
      try {
        await store.createEnrollToken({
          hash: 't',
          owner: 'oidc:ann',
          createdBy: 'local:admin',
          createdAt: T0,
          expiresAt: T0 + 1e9,
        });
        assert.ok(
          await store.enrollDevice({ tokenHash: 't', now: T0, deviceId: 'd1', name: 'd1', credentialHash: 'c' }),
        );
        const put = (id: string, body: Buffer) =>
          store.putRun({
            device: 'd1',
            id,
            contentType: 'text/plain',
            privacy: 'full',
            size: body.length,
            uploadedAt: T0 + 1,
            body,
            sha256: createHash('sha256').update(body).digest('hex'),
          });
        for (let i = 0; i < 150; i++) await put(`r${i}`, Buffer.from(`old run ${i} holds backfilled words`));
        await put('bin', Buffer.from([0x62, 0x61, 0x63, 0x6b, 0xff]));
        const q = parseTextQuery('backfilled');
        assert.ok(q.ok);
        const search = async () => (await store.runsVisibleTo(ADMIN, { limit: 500 }, { text: q.query })).items.length;
        assert.equal(await search(), 0, 'not indexed yet');
        await store.setSetting(BACKFILL_SETTING, '1000000');
        assert.equal(await wordsBackfill(store).run(), 151);
        assert.equal(await search(), 150);
        assert.equal(await store.getSetting(BACKFILL_SETTING), '0');
        assert.equal(await wordsBackfill(store).run(), 0, 'done once');
      } finally {
        await store.close();
      }
    });
  });
