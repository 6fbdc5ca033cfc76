// The OpenAPI 3.1 document describes every API operation, and every API response this suite makes
// is valid against it (JSON Schema 2020-12, checked with Ajv): the document cannot drift.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { interfaceRoutes } from '../../src/host/interface.ts';
import { consoleAccessToken, enrollDevice, harness, upload } from '../support/harness.ts';
import { type Doc, responseChecker } from '../support/openapi.ts';
import { ACCOUNTS } from '../support/scenario.ts';

test('every API response of a scripted session is valid against the served OpenAPI document', async () => {
  const h = await harness();
  try {
    const { device, credential } = await enrollDevice(h, ACCOUNTS.user.subject, 'documented');
    const theirs = await enrollDevice(h, ACCOUNTS.other.subject, 'not yours');
    await upload(h, credential, 'r1', 'mail bob@example.com', 'redacted');
    await upload(h, credential, 'r2', 'to be deleted', 'full');
    await h.levelCheck.idle();
    const bearer = (await consoleAccessToken(h, ACCOUNTS.user)).value;
    const docRes = await h.request('/api/v1/openapi.json', { headers: { authorization: `Bearer ${bearer}` } });
    assert.equal(docRes.status, 200);
    const doc = (await docRes.json()) as Doc;
    assert.equal(doc.openapi, '3.1.0');
    const bySession = await h.request('/api/v1/openapi.json', { headers: { cookie: h.signIn(ACCOUNTS.other).cookie } });
    assert.equal(bySession.status, 200, 'a signed-in session may read it too');
    assert.equal((await h.request('/api/v1/openapi.json')).status, 401);

    // Every API route is described, the document itself too.
    const documented = Object.keys(doc.paths).sort();
    const served = [
      ...new Set(
        interfaceRoutes.filter((r) => r.path.startsWith('/api/v1/')).map((r) => r.path.replace(/:([a-z]+)/g, '{$1}')),
      ),
    ].sort();
    // And each method: every route's operation is in the document.
    for (const r of interfaceRoutes.filter((r) => r.path.startsWith('/api/v1/')))
      assert.ok(doc.paths[r.path.replace(/:([a-z]+)/g, '{$1}')]?.[r.method.toLowerCase()], `${r.method} ${r.path}`);
    assert.deepEqual(documented, served);

    const check = responseChecker(doc);
    const validate = (path: string, status: number, type: string, body: unknown, method = 'get') =>
      check(method, path, status, type, body);
    const calls: Array<[string, string | undefined, string?]> = [
      [`/api/v1/devices/${device}`, bearer, '/api/v1/devices/{id}'],
      [`/api/v1/devices/${theirs.device}`, bearer, '/api/v1/devices/{id}'],
      ['/api/v1/devices/d_nope', undefined, '/api/v1/devices/{id}'],
      [`/api/v1/runs/${device}/r1`, bearer, '/api/v1/runs/{device}/{id}'],
      [`/api/v1/runs/${device}/nope`, bearer, '/api/v1/runs/{device}/{id}'],
      [`/api/v1/runs/${device}/r1?x=1`, bearer, '/api/v1/runs/{device}/{id}'],
      ['/api/v1/devices', bearer],
      ['/api/v1/devices?status=active&sort=name', bearer],
      ['/api/v1/devices?status=nope', bearer],
      ['/api/v1/devices', undefined],
      ['/api/v1/runs', bearer],
      ['/api/v1/runs?flagged=yes', bearer],
      ['/api/v1/runs?privacy=redacted&since=2020-01-01', bearer],
      ['/api/v1/runs?colour=red', bearer],
      ['/api/v1/runs?text=mail+bob', bearer],
      ['/api/v1/runs?text=%22unbalanced', bearer],
    ];
    const seen = new Set<string>();
    for (const [url, auth, template] of calls) {
      const res = await h.request(url, auth ? { headers: { authorization: `Bearer ${auth}` } } : {});
      const path = template ?? url.split('?')[0] ?? url;
      validate(path, res.status, res.headers.get('content-type') ?? '', await res.json());
      seen.add(`${path} ${res.status}`);
    }
    // Writes: a non-admin's revoke is 403, a run outside the scope 404, then each succeeds as 204.
    const admin = (await consoleAccessToken(h, ACCOUNTS.admin)).value;
    const writes: Array<[string, string, string, string]> = [
      ['POST', `/api/v1/devices/${device}/revoke`, bearer, '/api/v1/devices/{id}/revoke'],
      ['POST', `/api/v1/devices/${device}/revoke`, admin, '/api/v1/devices/{id}/revoke'],
      ['POST', '/api/v1/devices/d_nope/revoke', admin, '/api/v1/devices/{id}/revoke'],
      ['DELETE', `/api/v1/runs/${theirs.device}/r2`, bearer, '/api/v1/runs/{device}/{id}'],
      ['DELETE', `/api/v1/runs/${device}/r2`, bearer, '/api/v1/runs/{device}/{id}'],
    ];
    const statuses: number[] = [];
    for (const [method, url, auth, template] of writes) {
      const res = await h.request(url, { method, headers: { authorization: `Bearer ${auth}` } });
      statuses.push(res.status);
      const text = await res.text();
      validate(
        template,
        res.status,
        res.headers.get('content-type') ?? '',
        text ? JSON.parse(text) : undefined,
        method.toLowerCase(),
      );
    }
    assert.deepEqual(statuses, [403, 204, 404, 404, 204]);
    assert.ok(h.logs.some((r) => r.event === 'device.revoked' && r.device === device && r.account === 'local:admin'));
    assert.ok(h.logs.some((r) => r.event === 'run.deleted' && r.run === 'r2' && r.account === ACCOUNTS.user.subject));

    // The check is real: a device without its fields, or with one more, is refused.
    assert.throws(() => validate('/api/v1/devices', 200, 'application/json', { items: [{ id: 'x' }] }), /required/);
    assert.throws(
      () => validate('/api/v1/runs', 200, 'application/json', { items: [], secret: 'x' }),
      /additional properties/,
    );
    assert.ok(seen.has('/api/v1/devices/{id} 200') && seen.has('/api/v1/devices/{id} 404'), [...seen].join());
    assert.ok(seen.has('/api/v1/runs/{device}/{id} 200') && seen.has('/api/v1/runs/{device}/{id} 400'));
    assert.ok(seen.has('/api/v1/runs 200') && seen.has('/api/v1/devices 400') && seen.has('/api/v1/devices 401'));
    // The flagged run is there, with a boolean flag, as the schema says.
    const flagged = (await (
      await h.request('/api/v1/runs?flagged=yes', { headers: { authorization: `Bearer ${bearer}` } })
    ).json()) as {
      items: Array<{ id: string; flagged: boolean }>;
    };
    assert.deepEqual(
      flagged.items.map((r) => [r.id, r.flagged]),
      [['r1', true]],
    );
  } finally {
    await h.close();
  }
});

test('the document is valid OpenAPI 3.1 by the specification schema, and the check refuses a broken one', async () => {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const { OPENAPI } = await import('../../src/api/openapi.ts');
  const served = JSON.parse(JSON.stringify(OPENAPI)) as Doc;
  const validator = new Validator();
  const result = await validator.validate(served);
  assert.deepEqual(result, { valid: true }, JSON.stringify(result.errors));
  assert.equal(validator.version, '3.1');
  const broken = JSON.parse(JSON.stringify(OPENAPI)) as {
    paths: Record<string, { get?: { parameters?: Array<{ in: string }> } }>;
  };
  const first = broken.paths['/api/v1/devices']?.get?.parameters?.[0];
  assert.ok(first);
  first.in = 'body';
  assert.equal((await new Validator().validate(broken)).valid, false);
});
