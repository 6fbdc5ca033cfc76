// The control key and the next key (docs/contract.md section 16) on both stores: made on the first
// start, added to a store made before them without changing its pin, rotated (the next key becomes
// current, a new next key is made), and kept consistent when instances change the row at once.
import assert from 'node:assert/strict';
import { randomBytes, X509Certificate } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import type { Store } from '../../src/store/store.ts';
import {
  CONTROL_TLS_SETTING,
  loadControlIdentity,
  replaceControlKeys,
  rotateControlKey,
} from '../../src/tls/control_identity.ts';
import { isSealed, sealedSettings, settingsKey } from '../../src/store/sealed_settings.ts';
import { certificatePin, generateSelfSignedCertificate, keyPin } from '../../src/tls/self_signed.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));

const DAY = 86_400_000;
const now = Date.parse('2026-03-01T00:00:00Z');
const HOST = 'control.example';

/** Opens `count` stores on one database: one SQLite connection, or PostgreSQL pools on one schema. */
type Open = (count: number) => Promise<{ stores: Store[]; close(): Promise<void> }>;

const backends: Array<{ name: string; open: Open; skip?: string }> = [
  {
    name: 'sqlite',
    async open(count) {
      const store = openSqliteStore(':memory:');
      return { stores: Array.from({ length: count }, () => store), close: () => store.close() };
    },
  },
  {
    name: 'postgres',
    ...(available ? {} : { skip: SKIP_REASON }),
    async open(count) {
      const schema = freshSchema();
      const stores: Store[] = [];
      for (let i = 0; i < count; i++) stores.push(await openPostgresStore(PG_URL, { schema }));
      return { stores, close: async () => void (await Promise.all(stores.map((s) => s.close()))) };
    },
  },
];

for (const backend of backends) {
  describe(`control key: ${backend.name}`, { skip: backend.skip }, () => {
    test('the first start makes the key and the next key: two pins, the served key first', async () => {
      const db = await backend.open(1);
      try {
        const [store] = db.stores as [Store];
        const identity = await loadControlIdentity(store, HOST, now);
        const stored = JSON.parse((await store.getSetting(CONTROL_TLS_SETTING)) ?? '{}');
        assert.equal(identity.pin, certificatePin(identity.certPem));
        assert.deepEqual(identity.pins, [identity.pin, keyPin(stored.nextKeyPem)]);
        assert.notEqual(identity.pins[0], identity.pins[1]);
        // Kept: a second start (or instance) serves the same pair.
        assert.deepEqual((await loadControlIdentity(store, HOST, now + DAY)).pins, identity.pins);
      } finally {
        await db.close();
      }
    });

    test('a store made before the next key gets one when first opened; its pin is unchanged', async () => {
      const db = await backend.open(2);
      try {
        const [a, b] = db.stores as [Store, Store];
        const old = generateSelfSignedCertificate({
          commonName: HOST,
          dnsNames: [HOST],
          notBefore: new Date(now - DAY),
          days: 397,
        });
        await a.setSetting(CONTROL_TLS_SETTING, JSON.stringify(old));
        // Two instances opening it at once: one next key is made and both serve it.
        const [first, second] = await Promise.all([
          loadControlIdentity(a, HOST, now),
          loadControlIdentity(b, HOST, now),
        ]);
        assert.equal(first.certPem, old.certPem, 'the certificate (and so the pin of older links) is kept');
        assert.equal(first.pin, certificatePin(old.certPem));
        assert.equal(first.pins.length, 2);
        assert.deepEqual(second.pins, first.pins);
        assert.deepEqual((await loadControlIdentity(a, HOST, now + 1)).pins, first.pins);
      } finally {
        await db.close();
      }
    });

    test('a rotation makes the next key current, with a certificate naming the host, and a new next key', async () => {
      const db = await backend.open(2);
      try {
        const [a, b] = db.stores as [Store, Store];
        const before = await loadControlIdentity(a, HOST, now);
        const first = await rotateControlKey(a, HOST, now + DAY);
        assert.equal(first.retired, before.pin);
        assert.equal(first.identity.pins[0], before.pins[1], 'the next key is now served');
        assert.equal(first.identity.pin, first.identity.pins[0]);
        assert.equal(certificatePin(first.identity.certPem), before.pins[1]);
        assert.equal(first.identity.pins.length, 2);
        assert.ok(!before.pins.includes(first.identity.pins[1] ?? ''), 'a new next key');
        const cert = new X509Certificate(first.identity.certPem);
        assert.equal(cert.subjectAltName, `DNS:${HOST}`);
        assert.ok(Date.parse(cert.validTo) > now + 300 * DAY);
        // Every instance reading the store now serves it.
        const seen = await loadControlIdentity(b, HOST, now + DAY);
        assert.equal(seen.certPem, first.identity.certPem);
        assert.deepEqual(seen.pins, first.identity.pins);

        const second = await rotateControlKey(b, HOST, now + 2 * DAY);
        assert.equal(second.retired, first.identity.pins[0]);
        assert.equal(second.identity.pins[0], first.identity.pins[1]);
        assert.ok(!second.identity.pins.includes(before.pin), 'the first key is gone for good');
      } finally {
        await db.close();
      }
    });

    test('a rotation racing a renewal and another rotation: every change lands, one after the other', async () => {
      const db = await backend.open(3);
      try {
        const [a, b, c] = db.stores as [Store, Store, Store];
        const before = await loadControlIdentity(a, HOST, now);
        // The renewal is due (the host changed), the two rotations are two operators' commands.
        const [, r1, r2] = await Promise.all([
          loadControlIdentity(a, 'other.example', now),
          rotateControlKey(b, HOST, now),
          rotateControlKey(c, HOST, now),
        ]);
        const after = await loadControlIdentity(a, HOST, now);
        const chain = [r1, r2].sort((x, y) => (x.retired === before.pin ? -1 : y.retired === before.pin ? 1 : 0));
        assert.equal(chain[0]?.retired, before.pin);
        assert.equal(chain[1]?.retired, chain[0]?.identity.pin, 'the second rotation retired the first one’s key');
        assert.deepEqual(after.pins, chain[1]?.identity.pins);
      } finally {
        await db.close();
      }
    });

    test('sealed (issue 42): a compromised rotation racing a rotation replaces both keys; no old pin survives', async () => {
      const db = await backend.open(2);
      try {
        const key = settingsKey(randomBytes(32));
        const [a, b] = db.stores.map((s) => sealedSettings(s, key)) as [Store, Store];
        const before = await loadControlIdentity(a, HOST, now);
        const [rotated, replaced] = await Promise.all([
          rotateControlKey(a, HOST, now),
          replaceControlKeys(b, HOST, now),
        ]);
        const after = await loadControlIdentity(a, HOST, now);
        assert.ok(isSealed((await db.stores[0]?.getSetting(CONTROL_TLS_SETTING)) ?? ''), 'stored sealed');
        // Whichever landed last, the compromised replacement left neither of the pins it found.
        assert.equal(replaced.retired.length, 2);
        for (const pin of replaced.retired) assert.ok(!replaced.identity.pins.includes(pin));
        assert.ok(
          replaced.retired.includes(before.pin) || replaced.retired.includes(rotated.identity.pin),
          'it replaced the pair it read',
        );
        const last = after.pins[0] === replaced.identity.pins[0] ? replaced.identity : rotated.identity;
        assert.deepEqual(after.pins, last.pins);
        if (last === rotated.identity) assert.equal(rotated.retired, replaced.identity.pin, 'the rotation came second');
        else assert.ok(!before.pins.some((pin) => after.pins.includes(pin)), 'no pin of before survives');
      } finally {
        await db.close();
      }
    });

    test('a configured control certificate has one pin and no next key; nothing is stored', async () => {
      const db = await backend.open(1);
      try {
        const [store] = db.stores as [Store];
        const configured = generateSelfSignedCertificate({
          commonName: HOST,
          dnsNames: [HOST],
          notBefore: new Date(now),
          days: 10,
        });
        const identity = await loadControlIdentity(store, HOST, now, configured);
        assert.deepEqual(identity.pins, [certificatePin(configured.certPem)]);
        assert.equal(await store.getSetting(CONTROL_TLS_SETTING), undefined);
      } finally {
        await db.close();
      }
    });
  });
}
