// How the reference client keeps its pin set (docs/contract.md section 16), against a scripted
// control server: it trusts any pin it holds, fetches GET /v1/pins only when Paddock-Pins differs
// from its own set's digest, keeps a set only when it is well formed and holds the key it came
// over, and trusts the set it replaced for a few minutes only.
import assert from 'node:assert/strict';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { uploadRun } from '../../src/device_client/client.ts';
import { controlRequest, trustedPins, RETIRED_PINS_MS } from '../../src/device_client/control_request.ts';
import { PinMismatchError } from '../../src/device_client/pinned_request.ts';
import type { DeviceState } from '../../src/device_client/state.ts';
import { pinsDigest } from '../../src/domain/pins.ts';
import { certificatePin, generateSelfSignedCertificate } from '../../src/tls/self_signed.ts';

const other = (c: string) => `sha256/${c.repeat(43)}=`;
const X = other('X');
const Y = other('Y');

describe('the pin set against a scripted control server', () => {
  const pair = generateSelfSignedCertificate({
    commonName: '127.0.0.1',
    dnsNames: [],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(Date.now() - 60_000),
    days: 2,
  });
  const served = certificatePin(pair.certPem);
  const server = createServer({ cert: pair.certPem, key: pair.keyPem });
  let script: Array<(res: ServerResponse) => void> = [];
  let paths: string[] = [];
  let state: DeviceState;
  let saved: DeviceState[] = [];
  let lines: string[] = [];
  const opts = () => ({
    saveState: async (s: DeviceState) => void saved.push(structuredClone(s)),
    log: (line: string) => void lines.push(line),
  });
  const answer = (status: number, body: string, pinsHeader?: string) => (res: ServerResponse) => {
    res.writeHead(status, {
      'content-type': 'application/json',
      ...(pinsHeader ? { 'paddock-pins': pinsHeader } : {}),
    });
    res.end(body);
  };

  before(async () => {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        paths.push(`${req.method} ${req.url}`);
        (script.shift() ?? ((r: ServerResponse) => r.writeHead(500).end('unscripted')))(res);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  after(() => server.close());
  beforeEach(() => {
    script = [];
    paths = [];
    saved = [];
    lines = [];
    state = {
      server: '127.0.0.1',
      controlUrl: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
      pins: [X, served],
      device: 'd_pins',
      credential: 'c'.repeat(43),
    };
  });
  const get = () =>
    controlRequest(state, { url: new URL('/v1/ping', state.controlUrl), method: 'GET', headers: {} }, opts());

  test('the key matches the second pin held: trusted; the same digest asks nothing more', async () => {
    script = [answer(200, '{}', pinsDigest([X, served]))];
    assert.equal((await get()).status, 200);
    assert.deepEqual(paths, ['GET /v1/ping']);
    assert.deepEqual(saved, []);
  });

  test('another digest: the set is fetched over the pinned connection, kept, saved, the old one retired', async () => {
    script = [answer(200, '{}', 'ffffffffffffffff'), answer(200, JSON.stringify({ pins: [served, Y] }))];
    await get();
    assert.deepEqual(paths, ['GET /v1/ping', 'GET /v1/pins']);
    assert.deepEqual(state.pins, [served, Y]);
    assert.deepEqual(state.retiredPins?.pins, [X, served]);
    const until = Date.parse(state.retiredPins?.until ?? '');
    assert.ok(Math.abs(until - Date.now() - RETIRED_PINS_MS) < 5_000);
    assert.deepEqual(saved, [state]);
    assert.match(lines.join('\n'), /the control key's pins are now/);
    // The retired pins are trusted until then, and no longer after.
    assert.deepEqual(trustedPins(state), [served, Y, X]);
    assert.deepEqual(trustedPins(state, until + 1), [served, Y]);
  });

  for (const [why, body, status] of [
    ['not JSON', 'pins!', 200],
    ['no list', '{"pins":"sha256/x"}', 200],
    ['an empty list', '{"pins":[]}', 200],
    ['three pins', JSON.stringify({ pins: [served, X, Y] }), 200],
    ['a malformed pin', JSON.stringify({ pins: [served, 'sha256/short='] }), 200],
    ['a set without the key it came over', JSON.stringify({ pins: [X, Y] }), 200],
    ['a refusal', '{}', 503],
  ] as const) {
    test(`a pin answer with ${why}: the set held is kept, and the request still succeeds`, async () => {
      script = [answer(200, '{}', 'ffffffffffffffff'), answer(status, body)];
      assert.equal((await get()).status, 200);
      assert.deepEqual(state.pins, [X, served]);
      assert.equal(state.retiredPins, undefined);
      assert.deepEqual(saved, []);
      assert.match(lines.join('\n'), /updating the control key's pins: .*; the pins held are kept/);
    });
  }

  // Section 23: the set is fetched over a key the device trusts, perhaps a stolen current key; a
  // set that drops the next pin would let the thief outlast the rotation (pin_set.ts).
  for (const [why, held, offered, kept] of [
    ['drops the next pin held for another', () => [served, X], () => [served, Y], true],
    ['drops the next pin held, one pin left', () => [served, X], () => [served], true],
    ['names the replaced current pin as next again', () => [X, served], () => [served, X], true],
    ['makes the next pin held current (the rotation)', () => [X, served], () => [served, Y], false],
    ['makes the next pin held current, alone', () => [X, served], () => [served], false],
    ['keeps the next pin held', () => [X, served], () => [Y, served], false],
    ['gives a device holding one pin its next', () => [served], () => [served, Y], false],
  ] as const) {
    test(`a pin set that ${why}: ${kept ? 'refused, the set held kept, the request still succeeds' : 'kept'}`, async () => {
      state.pins = [...held()];
      script = [answer(200, '{}', 'ffffffffffffffff'), answer(200, JSON.stringify({ pins: offered() }))];
      assert.equal((await get()).status, 200);
      if (kept) {
        assert.deepEqual(state.pins, held());
        assert.equal(state.retiredPins, undefined);
        assert.deepEqual(saved, []);
        assert.equal(lines.length, 1);
        assert.match(
          lines[0] ?? '',
          /^updating the control key's pins: the set (drops|makes) .*; the pins held are kept$/,
        );
      } else {
        assert.deepEqual(state.pins, offered());
        assert.deepEqual(state.retiredPins?.pins, held());
        assert.deepEqual(saved, [state]);
      }
    });
  }

  test('an answer over a key trusted only as retired (an instance not yet reloaded) asks nothing', async () => {
    state.pins = [X, Y];
    state.retiredPins = { pins: [served], until: new Date(Date.now() + 60_000).toISOString() };
    script = [answer(200, '{}', pinsDigest([served]))];
    assert.equal((await get()).status, 200);
    assert.deepEqual(paths, ['GET /v1/ping']);
    assert.deepEqual(state.pins, [X, Y]);
  });

  test('a key matching no pin held: nothing sent, and the device is told it needs a new link', async () => {
    state.pins = [X, Y];
    state.retiredPins = { pins: [served], until: new Date(Date.now() - 1).toISOString() };
    await assert.rejects(
      uploadRun(state, { bytes: Buffer.from('x'), contentType: 'text/plain', privacy: 'full', id: 'r' }, opts()),
      (err: unknown) =>
        err instanceof PinMismatchError &&
        /needs a new enrollment link \(enroll again\); nothing was sent$/.test(err.message),
    );
    assert.deepEqual(paths, []);
  });
});
