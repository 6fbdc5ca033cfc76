// Every instance sharing the store serves a rotated control key within 60 s (docs/contract.md
// section 16), with no signal: each reads the key from the store on a timer (20 s; 200 ms here).
// `paddock rotate-control-key` runs as the real command against the running servers' store: a
// SQLite data directory in use by a server, and a PostgreSQL database shared by two instances.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { spkiPin } from '../../src/device_client/pinned_request.ts';
import { pinsDigest } from '../../src/domain/pins.ts';
import { CONTROL_RELOAD_MS } from '../../src/server/serve.ts';
import { type Live, live } from '../support/live.ts';
import { paddock } from '../support/process.ts';
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';

const available = await postgresAvailable();
const RELOAD = { controlReloadMs: 200 };

async function servedPin(l: Live): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port: l.port, rejectUnauthorized: false });
  try {
    await once(socket, 'secureConnect');
    return spkiPin(socket);
  } finally {
    socket.destroy();
  }
}

async function pinsOf(l: Live): Promise<{ pins: string[]; header: string | null }> {
  const res = await fetch(`${l.url}/v1/pins`);
  assert.equal(res.status, 200);
  return { ...((await res.json()) as { pins: string[] }), header: res.headers.get('paddock-pins') };
}

/** Waits until every instance serves `pin`; returns how long that took. */
async function served(instances: Live[], pin: string): Promise<number> {
  const started = Date.now();
  for (;;) {
    const pins = await Promise.all(instances.map(servedPin));
    if (pins.every((p) => p === pin)) return Date.now() - started;
    if (Date.now() - started > 10_000) assert.fail(`served ${pins.join(', ')}, not ${pin}, after 10 s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function rotate(env: Record<string, string>, ...flags: string[]): Promise<string> {
  const p = paddock(['rotate-control-key', ...flags], env);
  assert.equal(await p.exited, 0, p.output().stderr);
  return p.output().stderr;
}

/** The pin the command says every instance will serve. */
const servesOf = (said: string) => /serves (sha256\/\S+) within/.exec(said)?.[1] ?? '';

test('the running server reads the key at most every 20 s, within the 60 s the contract allows', () => {
  assert.ok(CONTROL_RELOAD_MS * 2 < 60_000, 'even a failed read leaves time for the next one');
});

test('sqlite: a rotation by the command is served by the running server without a signal', async () => {
  const l = await live({}, RELOAD);
  try {
    const before = await pinsOf(l);
    assert.equal(before.pins.length, 2);
    assert.equal(before.header, pinsDigest(before.pins));
    assert.equal(await servedPin(l), before.pins[0]);
    await rotate({ PADDOCK_DATA_DIR: l.dataDir });
    await served([l], before.pins[1] ?? '');
    const now = await pinsOf(l);
    assert.equal(now.pins[0], before.pins[1]);
    assert.equal(now.header, pinsDigest(now.pins));
    assert.notEqual(now.header, before.header);
    // The dashboard's self-test shows the key served now.
    const { cookie } = await l.signIn();
    const dashboard = await (await fetch(`${l.url}/`, { headers: { cookie } })).text();
    assert.ok(dashboard.includes(`pin ${now.pins[0]};`), 'the self-test names the new pin');
  } finally {
    await l.close();
  }
});

test('sqlite: rotate-control-key --compromised replaces both keys: two new pins, served without a signal', async () => {
  const l = await live({}, RELOAD);
  try {
    const before = await pinsOf(l);
    const said = await rotate({ PADDOCK_DATA_DIR: l.dataDir }, '--compromised');
    assert.match(said, /^paddock: both control keys replaced: .* every device needs a new enrollment link\n$/);
    await served([l], servesOf(said));
    const now = await pinsOf(l);
    assert.equal(now.pins.length, 2);
    assert.equal(new Set([...now.pins, ...before.pins]).size, 4, 'neither new pin is an old one');
    const { cookie } = await l.signIn();
    const audit = await (await fetch(`${l.url}/audit?event=control_key.rotated`, { headers: { cookie } })).text();
    assert.ok(audit.includes('compromised=true'), 'audited as compromised');
  } finally {
    await l.close();
  }
});

describe('postgres: two instances on one database', { skip: available ? false : SKIP_REASON }, () => {
  let database = '';
  after(() => (database ? dropDatabase(database) : undefined));

  test('both serve the rotated key, answer the same pins and the same Paddock-Pins', async () => {
    database = await freshDatabase();
    // One seal key file for every instance and the command.
    const keys = await mkdtemp(join(tmpdir(), 'paddock-seal-'));
    const env = sharedDatabaseEnv(databaseUrl(database), keys);
    const a = await live(env, RELOAD);
    const b = await live(env, RELOAD);
    try {
      const before = await pinsOf(a);
      assert.deepEqual(await pinsOf(b), before, 'one key pair for both, made once');
      await rotate(env);
      const ms = await served([a, b], before.pins[1] ?? '');
      assert.ok(ms < 5_000, `served after ${ms} ms`);
      const [onA, onB] = await Promise.all([pinsOf(a), pinsOf(b)]);
      assert.deepEqual(onA, onB);
      assert.equal(onA.pins[0], before.pins[1]);
      assert.notEqual(onA.header, before.header);
      // And the next rotation.
      await rotate(env);
      await served([a, b], onA.pins[1] ?? '');
      // A compromised key: both replaced, both instances serve a key no link carried.
      const held = (await pinsOf(a)).pins;
      await served([a, b], servesOf(await rotate(env, '--compromised')));
      const fresh = await pinsOf(b);
      assert.equal(new Set([...held, ...fresh.pins]).size, 4);
    } finally {
      await a.close();
      await b.close();
      await rm(keys, { recursive: true, force: true });
    }
  });
});
