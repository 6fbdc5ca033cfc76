// A `read` token is refused with 403 on every request that would change something
// (docs/contract.md section 14): every API route whose method is not GET or HEAD, read from the
// API's route table (api/routes.ts), so a write route added later is covered without a new row.
// Each refusal emits exactly one `access.read_only_refused`, changes nothing, and the same
// requests with a `write` token get past the scope check. On both stores.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { apiRoutes } from '../../src/api/routes.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { consoleAccessToken, enrollDevice, harness, upload } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { assertEvents } from '../support/scenario.ts';

const ADMIN = { subject: 'local:admin', display: 'admin', admin: true };
const writes = apiRoutes.filter((r) => r.method !== 'GET');

test('the API has write routes to check, and every one is POST or DELETE', () => {
  assert.ok(writes.length >= 8, JSON.stringify(writes.map((r) => r.path)));
  for (const r of writes) assert.ok(r.method === 'POST' || r.method === 'DELETE', `${r.method} ${r.path}`);
});

async function play(store?: Store) {
  const h = await harness({ store });
  try {
    const read = (await consoleAccessToken(h, ADMIN, { scope: 'read' })).value;
    const write = (await consoleAccessToken(h, ADMIN, { scope: 'write', name: 'writer' })).value;
    const { device, credential } = await enrollDevice(h, ADMIN.subject, 'kept');
    assert.equal((await upload(h, credential, 'run-1', 'bytes')).status, 201);
    const fill = (path: string) =>
      path.replace(':device', device).replace(':id', path.includes('/runs/') ? 'run-1' : device);
    const body = JSON.stringify({ name: 'renamed', uses: 1 });
    const send = (token: string, method: string, path: string) =>
      h.request(fill(path), {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
    // Used once from this address first, so that the refusals below are the only events.
    assert.equal((await h.request('/api/v1/devices', { headers: { authorization: `Bearer ${read}` } })).status, 200);
    for (const route of writes) {
      const heard = h.logs.length;
      const res = await send(read, route.method, route.path);
      assert.equal(res.status, 403, `${route.method} ${route.path}`);
      assert.equal(res.headers.get('content-type'), 'application/problem+json');
      assert.match(((await res.json()) as { detail: string }).detail, /read scope/);
      assertEvents(h, heard, ['access.read_only_refused']);
      assert.equal(h.logs.at(-1)?.path, fill(route.path));
    }
    // Nothing changed: the device keeps its name and its run; no token was added or revoked.
    const kept = await h.store.deviceVisibleTo(ADMIN, device);
    assert.equal(kept?.name, 'kept');
    assert.equal(kept?.revokedAt, null);
    assert.ok(await h.store.runVisibleTo(ADMIN, device, 'run-1'));
    assert.equal(
      (await h.store.accessTokensOf(ADMIN.subject, { limit: 10 })).items.filter((t) => t.revokedAt === null).length,
      2,
    );
    // A write token gets past the scope check on every one of them.
    for (const route of writes) {
      const heard = h.logs.length;
      const res = await send(write, route.method, route.path);
      assert.notEqual(res.status, 403, `${route.method} ${route.path}: ${await res.text()}`);
      assert.ok(!h.logs.slice(heard).some((r) => r.event === 'access.read_only_refused'));
    }
  } finally {
    await h.close();
  }
}

test('sqlite: a read token is refused on every write route of the API', () => play());

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
test(
  'postgres: a read token is refused on every write route of the API',
  { skip: !available && SKIP_REASON },
  async () => play(await openPostgresStore(PG_URL, { schema: freshSchema() })),
);
