// The level check (docs/contract.md section 10) through the control API: each redacted or minimal run is
// counted as it is stored (small ones at once, large ones read back from the store off the request
// path), the counts are recorded on the run, never the text, and the bytes stay as uploaded.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { countStream, levelCheck, QUEUE_LIMIT, SEGMENT, SMALL_RUN } from '../../src/control/level_check.ts';
import { countFindings } from '../../src/domain/redaction.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import type { Store } from '../../src/store/store.ts';
import type { StoredRun } from '../../src/domain/runs.ts';
import { enrollDevice, type Harness, harness, upload } from '../support/harness.ts';

const ADMIN = { subject: 'local:admin', admin: true };
let h: Harness;
let credential: string;
let device: string;

before(async () => {
  h = await harness();
  ({ credential, device } = await enrollDevice(h, 'oidc:ann'));
});
after(() => h.close());

async function stored(id: string): Promise<StoredRun> {
  await h.levelCheck.idle();
  const run = await h.store.runVisibleTo(ADMIN, device, id);
  assert.ok(run);
  return run;
}

async function bytesOf(run: StoredRun): Promise<string> {
  const parts: Uint8Array[] = [];
  for await (const part of run.read()) parts.push(part);
  return Buffer.concat(parts).toString();
}

test('a small redacted run with something left is flagged with counts per rule; its bytes are unchanged', async () => {
  const body = 'password=hunter2 from 10.1.2.3\n{"user": "carol"}\n';
  assert.equal((await upload(h, credential, 'small-1', body, 'redacted')).status, 201);
  const run = await stored('small-1');
  assert.equal(run.flagged, true);
  assert.deepEqual(run.findings, { text_field: 1, ipv4: 1, json_field: 1 });
  assert.equal(await bytesOf(run), body);
  const logged = JSON.stringify(h.logs);
  for (const secret of ['hunter2', '10.1.2.3', 'carol']) assert.ok(!logged.includes(secret), secret);
});

test('a clean redacted run is checked and not flagged; a full run is never checked', async () => {
  assert.equal(
    (await upload(h, credential, 'clean-1', 'temperature=21.5 password=[redacted]\n', 'redacted')).status,
    201,
  );
  const clean = await stored('clean-1');
  assert.deepEqual([clean.flagged, clean.findings], [false, {}]);
  assert.equal((await upload(h, credential, 'full-1', 'password=hunter2', 'full')).status, 201);
  const full = await stored('full-1');
  assert.deepEqual([full.flagged, full.findings], [false, null]);
});

test('a minimal run that is not a summary is flagged for it; an identical re-upload is not checked again', async () => {
  assert.equal((await upload(h, credential, 'min-1', 'free text\n', 'minimal')).status, 201);
  assert.deepEqual((await stored('min-1')).findings, { summary: 1 });
  await h.store.recordLevelCheck(device, 'min-1', {});
  assert.equal((await upload(h, credential, 'min-1', 'free text\n', 'minimal')).status, 200);
  assert.deepEqual((await stored('min-1')).findings, {});
});

test('a large run is checked off the request path, read back from the store, with the same counts', async () => {
  const line = 'reading=1 contact bob@example.com\n';
  const body = line.repeat(Math.ceil((3 * SEGMENT) / line.length));
  assert.ok(body.length > SMALL_RUN);
  assert.equal((await upload(h, credential, 'large-1', body, 'redacted')).status, 201);
  const run = await stored('large-1');
  assert.equal(run.flagged, true);
  assert.deepEqual(run.findings, countFindings(body, 'redacted'));
  assert.equal(run.findings?.email, Math.ceil((3 * SEGMENT) / line.length));
});

/** Chunks of `size` bytes of `text`, as the store reads a run back. */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.byteLength; at += size) yield bytes.subarray(at, at + size);
}

test('counting in segments: the same counts as at once for line-local findings, a character split across chunks whole', async () => {
  const text = `ünïcode user=x 192.168.0.1\n${'plain line\n'.repeat(300_000)}token=abc\nno newline at the end ${'é'.repeat(10)}`;
  assert.deepEqual(await countStream(chunked(text, 1001), 'redacted'), countFindings(text, 'redacted'));
  // A line longer than four segments is cut anyway, so memory stays bounded.
  const long = `${'a'.repeat(5 * SEGMENT)} password=x`;
  assert.deepEqual(await countStream(chunked(long, 65_536), 'redacted'), { text_field: 1 });
  // Past one segment a minimal run is no summary; under it, the summary rule reads it whole.
  assert.deepEqual(await countStream(chunked('x\n'.repeat(SEGMENT), 65_536), 'minimal'), { summary: 1 });
  assert.deepEqual(await countStream(chunked('{"bytes": 2, "lines": 1}', 7), 'minimal'), {});
});

test('the queue is bounded: beyond it a large run is left unchecked and the skip is logged; stop drops the rest', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const recorded: string[] = [];
  const store = {
    async runVisibleTo(_viewer: unknown, device: string, id: string) {
      return {
        device,
        id,
        read: async function* () {
          await gate;
          yield new TextEncoder().encode('password=x\n');
        },
      };
    },
    async recordLevelCheck(_device: string, id: string) {
      recorded.push(id);
      return true;
    },
  } as unknown as Store;
  const logger = memoryLogger();
  const checks = levelCheck({ store, logger });
  const big = new Uint8Array(SMALL_RUN + 1);
  // The first is taken at once by the worker (waiting at the gate); QUEUE_LIMIT more wait; one more is skipped.
  for (let i = 0; i < QUEUE_LIMIT + 2; i++) checks.stored({ device: 'd', id: `r${i}`, privacy: 'redacted', body: big });
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(
    logger.records.filter((r) => r.event === 'level_check.skipped').map((r) => r.run),
    [`r${QUEUE_LIMIT + 1}`],
  );
  const stopped = checks.stop();
  release();
  await stopped;
  assert.deepEqual(recorded, ['r0']);
  checks.stored({ device: 'd', id: 'after', privacy: 'redacted', body: new Uint8Array(1) });
  await checks.idle();
  assert.deepEqual(recorded, ['r0']);
});

test('the backfill checks the redacted and minimal runs left unchecked, oldest first, and skips full ones', async () => {
  const h = await harness();
  try {
    const { device } = await enrollDevice(h, 'oidc:user-1');
    const put = (id: string, privacy: 'full' | 'redacted' | 'minimal', text: string) => {
      const body = new TextEncoder().encode(text);
      return h.store.putRun({
        device,
        id,
        contentType: 'text/plain',
        privacy,
        size: body.length,
        uploadedAt: h.clock.now(),
        body,
        sha256: createHash('sha256').update(body).digest('hex'),
      });
    };
    // Stored behind the check's back, as a restart would leave them.
    await put('left-redacted', 'redacted', 'mail bob@example.com\n');
    await put('left-full', 'full', 'mail bob@example.com\n');
    await put('left-minimal', 'minimal', '{"privacy":"minimal","bytes":3,"lines":1}');
    const admin = { subject: 'local:admin', admin: true };
    assert.deepEqual(
      (await h.store.uncheckedRuns(0, 10)).map((r) => r.id),
      ['left-redacted', 'left-minimal'],
    );
    assert.equal(await h.levelCheck.backfill(), 2);
    assert.equal((await h.store.runVisibleTo(admin, device, 'left-redacted'))?.findings?.email, 1);
    assert.deepEqual((await h.store.runVisibleTo(admin, device, 'left-minimal'))?.findings, {});
    assert.equal((await h.store.runVisibleTo(admin, device, 'left-full'))?.findings, null);
    assert.deepEqual(await h.store.uncheckedRuns(0, 10), []);
    assert.equal(await h.levelCheck.backfill(), 0);
  } finally {
    await h.close();
  }
});
