// Every error of RFC 7644 section 3.12 that SCIM at /scim/v2 can answer, each a SCIM error
// (schemas Error, status as a string, scimType, detail) with nothing changed: malformed JSON, a
// name given twice, an unknown attribute path, an unsupported or malformed filter, a taken
// userName or displayName, a missing userName, a member that does not exist, a PATCH whose later
// operation fails (none of its operations applies), a remove without a path, an unknown id.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable } from '../support/postgres.ts';
import { assertScimError, type ScimClient, scimClient } from './client.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const patch = (...Operations: unknown[]) => ({ schemas: [PATCH], Operations });

async function fixture(s: ScimClient) {
  const user = await s.send('POST', '/Users', { schemas: [USER], userName: 'ada@example.com', displayName: 'Ada' });
  const other = await s.send('POST', '/Users', { schemas: [USER], userName: 'bob@example.com' });
  const group = await s.send('POST', '/Groups', { displayName: 'ops', members: [{ value: user.body.id }] });
  await s.send('POST', '/Groups', { displayName: 'dev' });
  return { user: user.body.id as string, other: other.body.id as string, group: group.body.id as string };
}

interface Row {
  name: string;
  method: string;
  path: (f: Awaited<ReturnType<typeof fixture>>) => string;
  body?: unknown;
  status: number;
  scimType?: string;
}

const rows: Row[] = [
  {
    name: 'malformed JSON',
    method: 'POST',
    path: () => '/Users',
    body: '{"userName": "cut',
    status: 400,
    scimType: 'invalidSyntax',
  },
  {
    name: 'a body that is not an object',
    method: 'POST',
    path: () => '/Users',
    body: '["userName"]',
    status: 400,
    scimType: 'invalidSyntax',
  },
  {
    name: 'a name given twice',
    method: 'POST',
    path: () => '/Users',
    body: '{"userName": "a", "userName": "b"}',
    status: 400,
    scimType: 'invalidSyntax',
  },
  {
    name: 'a missing userName',
    method: 'POST',
    path: () => '/Users',
    body: { schemas: [USER], displayName: 'No Name' },
    status: 400,
    scimType: 'invalidValue',
  },
  {
    name: 'a taken userName, in another case',
    method: 'POST',
    path: () => '/Users',
    body: { userName: 'ADA@example.com' },
    status: 409,
    scimType: 'uniqueness',
  },
  {
    name: 'a taken displayName',
    method: 'POST',
    path: () => '/Groups',
    body: { displayName: 'ops' },
    status: 409,
    scimType: 'uniqueness',
  },
  {
    name: 'a member that does not exist',
    method: 'POST',
    path: () => '/Groups',
    body: { displayName: 'new', members: [{ value: '00000000-0000-4000-8000-000000000000' }] },
    status: 400,
    scimType: 'invalidValue',
  },
  {
    name: 'a boolean that is no boolean',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'replace', path: 'active', value: 'maybe' }),
    status: 400,
    scimType: 'invalidValue',
  },
  {
    name: 'an unknown attribute path',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'replace', path: 'favouriteColour', value: 'red' }),
    status: 400,
    scimType: 'invalidPath',
  },
  {
    name: 'an unknown sub-attribute',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'replace', path: 'name.nickname', value: 'x' }),
    status: 400,
    scimType: 'invalidPath',
  },
  {
    name: 'an unknown operation',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'move', path: 'displayName', value: 'x' }),
    status: 400,
    scimType: 'invalidSyntax',
  },
  {
    name: 'no operations',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: { schemas: [PATCH], Operations: [] },
    status: 400,
    scimType: 'invalidSyntax',
  },
  {
    name: 'a remove without a path',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'remove' }),
    status: 400,
    scimType: 'noTarget',
  },
  {
    name: 'removing the userName',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'remove', path: 'userName' }),
    status: 400,
    scimType: 'mutability',
  },
  {
    name: 'a renamed userName that is taken',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch({ op: 'replace', path: 'userName', value: 'BOB@example.com' }),
    status: 409,
    scimType: 'uniqueness',
  },
  {
    name: 'a PATCH whose later operation fails',
    method: 'PATCH',
    path: (f) => `/Users/${f.user}`,
    body: patch(
      { op: 'replace', path: 'displayName', value: 'Changed' },
      { op: 'replace', path: 'active', value: false },
      { op: 'replace', path: 'nope', value: 1 },
    ),
    status: 400,
    scimType: 'invalidPath',
  },
  {
    name: 'a group PATCH whose later operation fails',
    method: 'PATCH',
    path: (f) => `/Groups/${f.group}`,
    body: patch(
      { op: 'replace', path: 'displayName', value: 'renamed' },
      { op: 'add', path: 'members', value: [{ value: '00000000-0000-4000-8000-000000000000' }] },
    ),
    status: 400,
    scimType: 'invalidValue',
  },
  {
    name: 'a group renamed to a taken name',
    method: 'PATCH',
    path: (f) => `/Groups/${f.group}`,
    body: patch({ op: 'replace', path: 'displayName', value: 'dev' }),
    status: 409,
    scimType: 'uniqueness',
  },
  {
    name: 'a group name with a control character',
    method: 'PATCH',
    path: (f) => `/Groups/${f.group}`,
    body: patch({ op: 'replace', path: 'displayName', value: 'a\u0007b' }),
    status: 400,
    scimType: 'invalidValue',
  },
  {
    name: 'a filter with or',
    method: 'GET',
    path: () => `/Users?filter=${encodeURIComponent('userName eq "a" or userName eq "b"')}`,
    status: 400,
    scimType: 'invalidFilter',
  },
  {
    name: 'a filter with co',
    method: 'GET',
    path: () => `/Users?filter=${encodeURIComponent('userName co "a"')}`,
    status: 400,
    scimType: 'invalidFilter',
  },
  {
    name: 'a filter on an attribute without an index',
    method: 'GET',
    path: () => `/Users?filter=${encodeURIComponent('title eq "a"')}`,
    status: 400,
    scimType: 'invalidFilter',
  },
  {
    name: 'a filter cut short',
    method: 'GET',
    path: () => `/Groups?filter=${encodeURIComponent('displayName eq')}`,
    status: 400,
    scimType: 'invalidFilter',
  },
  {
    name: 'a filter with an unquoted value',
    method: 'GET',
    path: () => `/Users?filter=${encodeURIComponent('userName eq ada')}`,
    status: 400,
    scimType: 'invalidFilter',
  },
  {
    name: 'a parameter the list does not take',
    method: 'GET',
    path: () => '/Users?sortBy=userName',
    status: 400,
    scimType: 'invalidSyntax',
  },
  {
    name: 'a count that is no number',
    method: 'GET',
    path: () => '/Users?count=ten',
    status: 400,
    scimType: 'invalidValue',
  },
  { name: 'an unknown user', method: 'GET', path: () => '/Users/00000000-0000-4000-8000-000000000000', status: 404 },
  {
    name: 'an id of another shape',
    method: 'PATCH',
    path: () => '/Users/..%2F..%2Fetc',
    body: patch({ op: 'remove', path: 'title' }),
    status: 404,
  },
  {
    name: 'an unknown group',
    method: 'DELETE',
    path: () => '/Groups/00000000-0000-4000-8000-000000000000',
    status: 404,
  },
  { name: 'a body of another media type', method: 'POST', path: () => '/Users', body: 'userName=a', status: 415 },
];

test('a filter no stored value can match asks nothing of the store (a NUL, or one attribute equal to two values)', async () => {
  for (const store of [undefined, ...(available ? [await openPostgresStore(PG_URL, { schema: freshSchema() })] : [])]) {
    const s = await scimClient(store);
    try {
      await fixture(s);
      for (const filter of [
        'userName eq "a\\u0000b"',
        'userName eq "ada@example.com" and userName eq "bob@example.com"',
        'displayName eq "\\u0007"',
      ]) {
        for (const list of ['/Users', '/Groups']) {
          const f = list === '/Groups' ? filter.replaceAll('userName', 'displayName') : filter;
          const res = await s.send('GET', `${list}?filter=${encodeURIComponent(f)}`);
          assert.equal(res.status, 200, `${list} ${f}: ${JSON.stringify(res.body)}`);
          assert.equal(res.body.totalResults, 0);
        }
      }
    } finally {
      await s.close();
    }
  }
});

test('every SCIM error that applies is a SCIM error, and changes nothing', async () => {
  for (const row of rows) {
    const s = await scimClient();
    try {
      const f = await fixture(s);
      const before = JSON.stringify([
        await s.h.store.scimUsers({}, { offset: 0, count: 100 }),
        await s.h.store.scimGroups({}, { offset: 0, count: 100 }, true),
      ]);
      const heard = s.h.logs.length;
      const res =
        row.status === 415
          ? await (async () => {
              const r = await s.h.request(`/scim/v2${row.path(f)}`, {
                method: row.method,
                headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/x-www-form-urlencoded' },
                body: row.body as string,
              });
              return { status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> };
            })()
          : await s.send(row.method, row.path(f), row.body);
      assertScimError(res, row.status, row.scimType);
      const after = JSON.stringify([
        await s.h.store.scimUsers({}, { offset: 0, count: 100 }),
        await s.h.store.scimGroups({}, { offset: 0, count: 100 }, true),
      ]);
      assert.equal(after, before, `${row.name}: nothing changed`);
      assert.deepEqual(
        s.h.logs.slice(heard).filter((r) => r.event.startsWith('scim.')),
        [],
        `${row.name}: no scim event`,
      );
    } catch (err) {
      (err as Error).message = `${row.name}: ${(err as Error).message}`;
      throw err;
    } finally {
      await s.close();
    }
  }
});

test('If-Match (RFC 7644 section 3.14): the version read lets a change through; another is 412, nothing changed', async () => {
  const s = await scimClient();
  try {
    const { user } = await fixture(s);
    const send = (ifMatch: string, displayName: string) =>
      s.h.request(`/scim/v2/Users/${user}`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${s.token}`, 'content-type': 'application/scim+json', 'if-match': ifMatch },
        body: JSON.stringify(patch({ op: 'replace', path: 'displayName', value: displayName })),
      });
    const stale = await send('W/"7"', 'Stale');
    assert.equal(stale.status, 412);
    assert.equal(((await stale.json()) as { status: string }).status, '412');
    assert.equal((await send('nonsense', 'Bad')).status, 412);
    assert.equal((await s.h.store.scimUser(user))?.displayName, 'Ada');
    const ok = await send('W/"1"', 'Ada Lovelace');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('etag'), 'W/"2"');
    assert.equal((await send('*', 'Any')).status, 200);
    const gone = await s.h.request(`/scim/v2/Users/${user}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${s.token}`, 'if-match': 'W/"2"' },
    });
    assert.equal(gone.status, 412, 'the version is 3 now');
  } finally {
    await s.close();
  }
});
