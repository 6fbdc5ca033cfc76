// Issue 42's first finding against section 15 (docs/contract.md): an upload with X-Collection whose
// run id is already stored answered by the stored run's level, not by its header. The review's
// `PUT /v1/runs/old-full` with `X-Privacy-Level: minimal` and the bytes of a `full` run answered 200
// and fulfilled a `minimal` request with a `full` run. Now: 403 when the stored run is more
// revealing than the request, 409 when it is at another level than the header; nothing fulfilled.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import type { Actor } from '../../src/domain/accounts.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';
import { onBothStores } from '../support/both_stores.ts';

const admin: Actor = { subject: 'local:admin', admin: true, client: '192.0.2.1' };

function put(h: Harness, credential: string, id: string, level: string, body: string, request?: string) {
  const headers: Record<string, string> = { authorization: `Bearer ${credential}`, 'x-privacy-level': level };
  if (request !== undefined) headers['x-collection'] = request;
  return h.control(`/v1/runs/${id}`, { method: 'PUT', headers, body });
}

/** A request at `privacy` for the device, taken as the device takes it. */
async function requestFor(h: Harness, device: string, credential: string, privacy: string) {
  const made = await createCollection(h as never, admin, { privacy, reason: 'asked', scope: { devices: [device] } });
  assert.ok(made.ok);
  const res = await h.control('/v1/requests', { headers: { authorization: `Bearer ${credential}` } });
  const [r] = ((await res.json()) as { requests: Array<{ id: string }> }).requests;
  assert.ok(r?.id);
  return { request: r.id, collection: made.collection.id };
}

async function targetOf(h: Harness, collection: string) {
  const [t] = (await h.store.collectionTargets(admin, collection, { limit: 5 })).items;
  return [t?.state, t?.run];
}

function suite(name: string, open: () => Promise<Store>, skip: string | false) {
  describe(`finding: an X-Collection retry answers by the stored run's level (${name})`, { skip }, () => {
    test('finding: a full run stored earlier, sent again as minimal for a minimal request, is 403 and fulfils nothing', async () => {
      const h = await harness({ store: await open() });
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        assert.equal((await put(h, d.credential, 'old-full', 'full', 'everything')).status, 201);
        const { request, collection } = await requestFor(h, d.device, d.credential, 'minimal');
        const res = await put(h, d.credential, 'old-full', 'minimal', 'everything', request);
        assert.equal(res.status, 403, await res.clone().text());
        assert.match(await res.text(), /more revealing than the request/);
        assert.deepEqual(await targetOf(h, collection), ['delivered', null], 'the request stays open');
        assert.equal((await h.store.runVisibleTo(admin, d.device, 'old-full'))?.privacy, 'full');
        await h.flushAudit();
        assert.equal(h.logs.filter((r) => r.event === 'request.fulfilled').length, 0);
      } finally {
        await h.close();
      }
    });

    test('finding: a run stored at another level than the header (within the request) is 409, the request stays open', async () => {
      const h = await harness({ store: await open() });
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        assert.equal((await put(h, d.credential, 'old-min', 'minimal', 'little')).status, 201);
        const { request, collection } = await requestFor(h, d.device, d.credential, 'redacted');
        const res = await put(h, d.credential, 'old-min', 'redacted', 'little', request);
        assert.equal(res.status, 409, await res.clone().text());
        assert.match(await res.text(), /stored at another privacy level/);
        assert.deepEqual(await targetOf(h, collection), ['delivered', null]);
        // The same run sent at its own level fulfils the request, and its retry at another level is 409.
        assert.equal((await put(h, d.credential, 'old-min', 'minimal', 'little', request)).status, 200);
        assert.deepEqual(await targetOf(h, collection), ['fulfilled', 'old-min']);
        assert.equal((await put(h, d.credential, 'old-min', 'redacted', 'little', request)).status, 409);
        assert.equal((await put(h, d.credential, 'old-min', 'minimal', 'little', request)).status, 200, 'retry');
      } finally {
        await h.close();
      }
    });

    test('an upload with X-Collection reads its request once: the fulfil is given the request as read', async () => {
      const store = await open();
      const calls: string[] = [];
      const counted = new Proxy(store, {
        get(target, name, receiver) {
          const value = Reflect.get(target, name, receiver) as unknown;
          if (typeof value !== 'function') return value;
          return (...args: unknown[]) => {
            if (name === 'requestOf' || name === 'fulfilRequest')
              calls.push(`${name}:${typeof args[1] === 'string' ? 'by id' : 'as read'}`);
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
      const h = await harness({ store: counted });
      try {
        const d = await enrollDevice(h, 'oidc:ann');
        const { request, collection } = await requestFor(h, d.device, d.credential, 'redacted');
        calls.length = 0;
        assert.equal((await put(h, d.credential, 'answer', 'redacted', 'bytes', request)).status, 201);
        assert.deepEqual(calls, ['requestOf:by id', 'fulfilRequest:as read']);
        assert.deepEqual(await targetOf(h, collection), ['fulfilled', 'answer']);
      } finally {
        await h.close();
      }
    });
  });
}

await onBothStores(suite);
