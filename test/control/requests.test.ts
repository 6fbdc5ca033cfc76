// The device's side of collection requests (docs/contract.md section 15), on both stores: GET
// /v1/requests with and without `wait`, X-Collection on uploads, POST /v1/requests/{id}/decline,
// and each bad input's precise answer with nothing changed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import type { Actor } from '../../src/domain/accounts.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';

const admin: Actor = { subject: 'local:admin', admin: true, client: '192.0.2.1' };

async function ask(h: Harness, devices: string[], privacy = 'redacted', reason = 'firmware 2.1 check') {
  const out = await createCollection(h as never, admin, { privacy, reason, scope: { devices } });
  assert.ok(out.ok, JSON.stringify(out));
  return out.collection;
}

function get(h: Harness, credential: string, query = '') {
  return h.control(`/v1/requests${query}`, { headers: { authorization: `Bearer ${credential}` } });
}

async function requests(h: Harness, credential: string, query = '') {
  const res = await get(h, credential, query);
  assert.equal(res.status, 200, await res.clone().text());
  assert.equal(res.headers.get('cache-control'), 'no-store');
  return ((await res.json()) as { requests: Array<Record<string, string>> }).requests;
}

function decline(h: Harness, credential: string, id: string, body = '{"reason": "the user said no"}') {
  return h.control(`/v1/requests/${id}/decline`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body,
  });
}

function collected(h: Harness, credential: string, id: string, request: string, body: string, level = 'redacted') {
  return h.control(`/v1/runs/${id}`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': level, 'x-collection': request },
    body,
  });
}

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  const world = async () => harness({ store: await open() });

  describe(`collection requests, the device's side: ${name}`, { skip }, () => {
    test('GET /v1/requests: none, then the open ones oldest first; delivered stays open; a bad wait is 400', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        assert.equal((await get(h, 'x'.repeat(43))).status, 401);
        assert.deepEqual(await requests(h, d.credential), []);
        for (const wait of ['-1', '61', 'abc', '1.5', '01', ' 1', '1e1', '']) {
          const res = await get(h, d.credential, `?wait=${encodeURIComponent(wait)}`);
          assert.equal(res.status, 400, `wait=${wait}`);
          assert.match(await res.text(), /wait must be whole seconds from 0 to 60/);
        }
        assert.equal((await get(h, d.credential, '?wait=1&wait=2')).status, 400);
        const first = await ask(h, [d.device], 'redacted', 'first');
        await ask(h, [d.device], 'minimal', 'second');
        const got = await requests(h, d.credential, '?wait=0');
        assert.deepEqual(
          got.map((r) => [r.privacy, r.reason]),
          [
            ['redacted', 'first'],
            ['minimal', 'second'],
          ],
        );
        for (const r of got) {
          assert.match(r.id ?? '', /^r_[0-9]+$/);
          assert.deepEqual(Object.keys(r).sort(), ['created_at', 'expires_at', 'id', 'privacy', 'reason']);
        }
        assert.equal((await h.store.collectionVisibleTo(admin, first.id))?.counts.delivered, 1);
        assert.equal((await requests(h, d.credential)).length, 2, 'delivered requests stay open');
      } finally {
        await h.close();
      }
    });

    test('asking for requests, held or not, counts as the device being seen', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        h.clock.advance(10 * 60_000);
        assert.deepEqual(await requests(h, d.credential, '?wait=1'), []);
        let seen: number | null | undefined;
        for (let i = 0; i < 50 && seen !== h.clock.now(); i++) {
          seen = (await h.store.deviceVisibleTo(admin, d.device))?.lastSeenAt;
          if (seen !== h.clock.now()) await new Promise((r) => setTimeout(r, 20));
        }
        assert.equal(seen, h.clock.now());
      } finally {
        await h.close();
      }
    });

    test('a held request is answered as soon as a collection reaches the device; one device holds at most two', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const started = Date.now();
        const held = requests(h, d.credential, '?wait=30');
        await new Promise((r) => setTimeout(r, 100));
        await ask(h, [d.device], 'full', 'now please');
        const got = await held;
        assert.equal(got.length, 1);
        assert.ok(Date.now() - started < 3_000, `answered in ${Date.now() - started} ms`);

        // Three held at once: the first is answered at once with an empty list.
        const e = await enrollDevice(h, 'oidc:ann', 'e');
        const one = requests(h, e.credential, '?wait=30');
        await new Promise((r) => setTimeout(r, 50));
        const two = requests(h, e.credential, '?wait=30');
        await new Promise((r) => setTimeout(r, 50));
        const three = requests(h, e.credential, '?wait=30');
        const t0 = Date.now();
        assert.deepEqual(await one, []);
        assert.ok(Date.now() - t0 < 2_000, 'the oldest is answered at once');
        await ask(h, [e.device]);
        const [a, b] = await Promise.all([two, three]);
        assert.equal(a.length + b.length >= 1, true, 'the two held are woken');
      } finally {
        await h.close();
      }
    });

    test('X-Collection: fulfilled by its upload; a retry is 200; each bad header its answer and nothing stored', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const other = await enrollDevice(h, 'oidc:ann', 'other');
        const c = await ask(h, [d.device, other.device], 'redacted');
        const [mine] = await requests(h, d.credential);
        const [theirs] = await requests(h, other.credential);
        assert.ok(mine?.id && theirs?.id);
        const stored = async (device: string, id: string) => (await h.store.runStored(device, id)) === true;

        for (const [header, status, why] of [
          ['nope', 400, 'malformed'],
          ['r_0', 400, 'malformed (zero)'],
          ['r_999999', 409, 'unknown'],
          [theirs.id, 409, "another device's"],
        ] as const) {
          const res = await collected(h, d.credential, `bad-${status}-${why.length}`, header, 'x');
          assert.equal(res.status, status, why);
          assert.equal(await stored(d.device, `bad-${status}-${why.length}`), false, `${why}: nothing stored`);
        }
        const above = await collected(h, d.credential, 'too-full', mine.id, 'x', 'full');
        assert.equal(above.status, 403, 'more revealing than the request');
        assert.match(await above.text(), /more revealing than the request/);
        assert.equal(await stored(d.device, 'too-full'), false);

        assert.equal((await collected(h, d.credential, 'answer', mine.id, 'the run', 'minimal')).status, 201);
        assert.equal((await collected(h, d.credential, 'answer', mine.id, 'the run', 'minimal')).status, 200, 'retry');
        // The run page names the collection it answered, and its device by name, linked (section 22).
        const { cookie } = h.signIn({ subject: 'local:admin', admin: true });
        const view = await (await h.request(`/runs/${d.device}/answer`, { headers: { cookie } })).text();
        assert.match(view, new RegExp(`the collection request <a href="/collections/${c.id}">${c.id}</a>`));
        assert.match(view, new RegExp(`<a href="/devices/${d.device}">[^<]+</a>\\s*<code>${d.device}</code>`));
        const own = await (await h.request(`/runs/${d.device}/bad-400-9`, { headers: { cookie } })).status;
        assert.equal(own, 404, 'refused uploads left nothing to show');
        assert.equal((await collected(h, d.credential, 'another', mine.id, 'x', 'minimal')).status, 409, 'closed');
        assert.equal(await stored(d.device, 'another'), false);
        const targets = (await h.store.collectionTargets(admin, c.id, { limit: 10 })).items;
        assert.deepEqual(
          targets.filter((t) => t.device === d.device).map((t) => [t.state, t.run]),
          [['fulfilled', 'answer']],
        );
        await h.flushAudit();
        assert.equal(h.logs.filter((r) => r.event === 'request.fulfilled').length, 1, 'fulfilled once');
      } finally {
        await h.close();
      }
    });

    test('decline: 204; again 409; another device 404; each bad body its answer; the last answer closes the collection', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const other = await enrollDevice(h, 'oidc:ann', 'other');
        const c = await ask(h, [d.device]);
        const [r] = await requests(h, d.credential);
        assert.ok(r?.id);
        for (const [body, status] of [
          [JSON.stringify({ reason: 'x'.repeat(201) }), 400],
          [JSON.stringify({ reason: 42 }), 400],
          [JSON.stringify({ reason: 'ok', extra: 1 }), 400],
          ['[]', 400],
          ['{"reason": "a\u0007bell"}', 400],
          [JSON.stringify({ reason: 'x'.repeat(9000) }), 413],
          ['not json', 400],
        ] as const) {
          assert.equal((await decline(h, d.credential, r.id, body)).status, status, body.slice(0, 40));
        }
        assert.equal((await decline(h, other.credential, r.id)).status, 404, "another device's");
        assert.equal((await decline(h, d.credential, 'r_999999')).status, 404);
        assert.equal((await decline(h, d.credential, 'nope')).status, 404);
        assert.equal((await decline(h, d.credential, r.id)).status, 204);
        assert.equal((await decline(h, d.credential, r.id)).status, 409, 'not open');
        const after = await h.store.collectionVisibleTo(admin, c.id);
        assert.equal(after?.counts.declined, 1);
        assert.notEqual(after?.closedAt, null);
        await h.flushAudit();
        const events = h.logs.map((l) => l.event).filter((e) => /^(collection|request)\./.test(e));
        assert.deepEqual(events, ['collection.created', 'request.declined', 'collection.closed']);
        assert.equal(h.logs.find((l) => l.event === 'request.declined')?.reason, 'the user said no');
        // The audit trail names the device, not its owner, as the one that declined (section 22).
        const [record] = (await h.store.auditPage({ event: 'request.declined' }, { limit: 5 })).items;
        assert.deepEqual([record?.account, record?.device], [`device:${d.device}`, d.device]);
        assert.match(record?.detail ?? '', /^owner=oidc:ann collection=c_\S+ reason=the user said no$/);
      } finally {
        await h.close();
      }
    });

    test('decline with stderr: kept with the target as sent (line feeds, tabs, 3 KiB of UTF-8); none when absent or empty', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const wide = `${'é'.repeat(1535)}\n`; // 3,070 bytes of UTF-8 and a line feed
        for (const [body, kept] of [
          [{ reason: 'command exited with status 1', stderr: 'disk "sda"\tnot found\n' }, 'disk "sda"\tnot found\n'],
          [{ reason: 'command exited with status 1', stderr: wide }, wide],
          [{ reason: 'command exited with status 1', stderr: '' }, null],
          [{}, null],
        ] as const) {
          const c = await ask(h, [d.device]);
          const [r] = await requests(h, d.credential);
          const res = await decline(h, d.credential, r?.id ?? '', JSON.stringify(body));
          assert.equal(res.status, 204, await res.text());
          const [target] = (await h.store.collectionTargets(admin, c.id, { limit: 5 })).items;
          assert.deepEqual([target?.state, target?.stderr], ['declined', kept]);
        }
        // Only the target keeps it: the event, its log line and its audit row do not carry 3 KiB.
        assert.ok(h.logs.every((l) => !('stderr' in l)));
      } finally {
        await h.close();
      }
    });

    test('a credential replaced while its request was held: woken, it answers 401 and hands over nothing; the new one gets the request', async () => {
      const h = await world();
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const held = get(h, d.credential, '?wait=20');
        await new Promise((r) => setTimeout(r, 100));
        // The device rotates and uses its new credential: the old one is done, on every instance. (A
        // moment after the held request arrived: presented within its overlap, it is not a reuse.)
        h.clock.advance(1);
        const rotated = await h.control('/v1/credential', {
          method: 'POST',
          headers: { authorization: `Bearer ${d.credential}` },
        });
        assert.equal(rotated.status, 201);
        const { credential } = (await rotated.json()) as { credential: string };
        assert.deepEqual(await requests(h, credential), []);
        await ask(h, [d.device]);
        const answer = await held;
        assert.equal(answer.status, 401, 'the old credential’s held request');
        const taken = await requests(h, credential);
        assert.equal(taken.length, 1, 'the new credential gets the request: the device does not wait');
      } finally {
        await h.close();
      }
    });

    test('a revoked device: its open requests are cancelled, its held request answers 401', async () => {
      const h = await world();
      try {
        const { revokeDevice } = await import('../../src/actions/devices.ts');
        const d = await enrollDevice(h, 'oidc:ann');
        const c = await ask(h, [d.device]);
        assert.equal((await requests(h, d.credential)).length, 1);
        const e = await enrollDevice(h, 'oidc:ann', 'e');
        const held = get(h, e.credential, '?wait=20');
        await new Promise((r) => setTimeout(r, 100));
        const started = Date.now();
        assert.equal(await revokeDevice(h as never, admin, d.device), 'revoked');
        assert.equal(await revokeDevice(h as never, admin, e.device), 'revoked');
        assert.equal((await h.store.collectionVisibleTo(admin, c.id))?.counts.cancelled, 1, 'its request is cancelled');
        const answer = await held;
        assert.equal(answer.status, 401, 'the held request of a revoked device');
        assert.ok(Date.now() - started < 8_000, `answered within the re-check (${Date.now() - started} ms)`);
        assert.equal((await get(h, d.credential)).status, 401);
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
