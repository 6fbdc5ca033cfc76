// A decline's `stderr` (docs/contract.md section 15) attacked: too long by one byte, every control
// character but line feed and tab, C1 controls, a lone surrogate written as a JSON escape, bytes
// that are not UTF-8, other types, a body past 8 KiB. Each is refused precisely (400, or 413 for
// the body), nothing is stored, and the request stays open for an honest decline.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import { DECLINE_STDERR_MAX } from '../../src/domain/collections.ts';
import { enrollDevice, harness } from '../support/harness.ts';

const admin = { subject: 'local:admin', admin: true, client: '192.0.2.1' };

test('a decline whose stderr is out of shape is refused precisely; nothing changes; an honest one then works', async () => {
  const h = await harness();
  try {
    const d = await enrollDevice(h, 'oidc:ann');
    const made = await createCollection(h as never, admin, {
      privacy: 'full',
      reason: 'check',
      scope: { devices: [d.device] },
    });
    assert.ok(made.ok);
    const asked = await h.control('/v1/requests', { headers: { authorization: `Bearer ${d.credential}` } });
    const [r] = ((await asked.json()) as { requests: Array<{ id: string }> }).requests;
    assert.ok(r);
    const decline = (body: string | Uint8Array) =>
      h.control(`/v1/requests/${r.id}/decline`, {
        method: 'POST',
        headers: { authorization: `Bearer ${d.credential}`, 'content-type': 'application/json' },
        body,
      });
    const json = (stderr: unknown) => JSON.stringify({ reason: 'failed', stderr });
    const rule =
      /^stderr must be a string of at most 3072 bytes of UTF-8 with no control character but line feed and tab/;
    const cases: Array<[why: string, body: string | Uint8Array, status: number, message: RegExp]> = [
      ['one byte too long', json('x'.repeat(DECLINE_STDERR_MAX + 1)), 400, rule],
      ['one byte too long in 2-byte characters', json(`${'é'.repeat(DECLINE_STDERR_MAX / 2)}x`), 400, rule],
      ['NUL', json('a\u0000b'), 400, rule],
      ['escape (terminal colours)', json('\u001b[31mred'), 400, rule],
      ['carriage return', json('line\r\n'), 400, rule],
      ['vertical tab', json('a\u000bb'), 400, rule],
      ['DEL', json('a\u007fb'), 400, rule],
      ['C1 next line', json('a\u0085b'), 400, rule],
      ['a lone surrogate as a JSON escape', '{"stderr": "a\\ud800b"}', 400, rule],
      ['a number', json(42), 400, rule],
      ['null', json(null), 400, rule],
      ['an array', json(['a']), 400, rule],
      ['an object', json({ text: 'a' }), 400, rule],
      [
        'bytes that are not UTF-8',
        Buffer.concat([Buffer.from('{"stderr": "a'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
        400,
        /JSON object/,
      ],
      ['a body past 8 KiB', json('\\'.repeat(4100)), 413, /./],
    ];
    for (const [why, body, status, message] of cases) {
      const res = await decline(body);
      assert.equal(res.status, status, why);
      assert.match(await res.text(), message, why);
    }
    const [open] = (await h.store.collectionTargets(admin, made.collection.id, { limit: 5 })).items;
    assert.deepEqual([open?.state, open?.stderr], ['delivered', null], 'nothing changed');
    assert.equal((await decline(json('no disk\n'))).status, 204);
    const [declined] = (await h.store.collectionTargets(admin, made.collection.id, { limit: 5 })).items;
    assert.deepEqual([declined?.state, declined?.stderr], ['declined', 'no disk\n']);
  } finally {
    await h.close();
  }
});
