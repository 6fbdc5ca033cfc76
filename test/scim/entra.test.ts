// Microsoft Entra ID's documented requests (learn.microsoft.com, "Tutorial: Develop and plan
// provisioning for a SCIM endpoint" and "Known issues and resolutions with SCIM 2.0 protocol
// compliance"), replayed on both stores: the userName filter, the create with the enterprise
// extension, PATCH "Replace" with attribute paths and string booleans ("False"), group members
// added, removed with `members[value eq "…"]` and in the older form with a value list, the group
// read with excludedAttributes=members, and DELETE, which disables the account.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { scimClient } from './client.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

async function play(store?: Store) {
  const s = await scimClient(store);
  try {
    const query = await s.send(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "Test_User_dfeef4c5-5681-4387-b016-bdf221e82081"')}`,
    );
    assert.equal(query.status, 200);
    assert.equal(query.body.totalResults, 0);
    const created = await s.send('POST', '/Users', {
      schemas: [USER, ENTERPRISE],
      externalId: '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef',
      userName: 'Test_User_ab6490ee-1e48-479e-a20b-2d77186b5dd1',
      active: true,
      emails: [{ primary: true, type: 'work', value: 'Test_User_fd0ea19b-0777-472c-9f96-4f70d2226f2e@testuser.com' }],
      meta: { resourceType: 'User' },
      name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
      roles: [],
      [ENTERPRISE]: { department: 'Sales', employeeNumber: '7' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    assert.deepEqual(created.body.schemas, [USER, ENTERPRISE]);
    assert.deepEqual(created.body[ENTERPRISE], { department: 'Sales', employeeNumber: '7' });
    const byExternal = await s.send(
      'GET',
      `/Users?filter=${encodeURIComponent('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`,
    );
    assert.equal(byExternal.body.totalResults, 1);

    // Update with attribute paths, "Replace" capitalized, as the tutorial shows.
    const update = await s.send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
        { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
        { op: 'Add', path: `${ENTERPRISE}:department`, value: 'Marketing' },
      ],
    });
    assert.equal(update.status, 200, JSON.stringify(update.body));
    assert.deepEqual(update.body.emails, [{ primary: true, type: 'work', value: 'updatedEmail@microsoft.com' }]);
    assert.equal((update.body.name as Record<string, string>).familyName, 'updatedFamilyName');
    assert.equal((update.body[ENTERPRISE] as Record<string, string>).department, 'Marketing');
    // Without a path, names as paths (Entra ID's multi-attribute form).
    const multi = await s.send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', value: { 'name.givenName': 'Given', displayName: 'Given Family' } }],
    });
    assert.equal((multi.body.name as Record<string, string>).givenName, 'Given');
    assert.equal(multi.body.displayName, 'Given Family');

    // A group with the user, read as Entra ID reads it.
    const group = await s.send('POST', '/Groups', {
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
      schemas: [GROUP],
    });
    assert.equal(group.status, 201);
    const gid = group.body.id as string;
    const lookup = await s.send(
      'GET',
      `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "displayName"')}`,
    );
    assert.equal(lookup.body.totalResults, 1);
    assert.equal(((lookup.body.Resources as Array<Record<string, unknown>>)[0] ?? {}).members, undefined);
    const add = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ $ref: null, value: id }] }],
    });
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const read = await s.send('GET', `/Groups/${gid}?excludedAttributes=members`);
    assert.equal(read.status, 200);
    assert.equal(read.body.members, undefined);
    // The older removal (a value list), then the compliant one (a filter path); then a rename.
    const removeOld = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: id }] }],
    });
    assert.deepEqual(removeOld.body.members, []);
    await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Add', path: 'members', value: [{ value: id }] }],
    });
    const removeNew = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    assert.deepEqual(removeNew.body.members, []);
    const rename = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [
        { op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' },
      ],
    });
    assert.equal(rename.body.displayName, '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName');

    // The user signs in and is linked; "active": "False" (a string) disables the account.
    const subject = 'oidc:entra-object-id';
    await s.h.store.recordSignIn({ subject, display: 'Given Family', lastSignInAt: s.h.clock.now(), admin: false });
    assert.ok(await s.h.store.linkScimUser(id, subject));
    const session = s.h.signIn({ subject, admin: false });
    const off = await s.send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', path: 'active', value: 'False' }],
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.active, false);
    assert.notEqual((await s.h.store.accountState(subject))?.disabledAt, null);
    assert.notEqual((await s.h.request('/devices', { headers: { cookie: session.cookie } })).status, 200);
    // The known issue's other form: no path, a string boolean, any case.
    const on = await s.send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'Replace', value: { active: 'True' } }],
    });
    assert.equal(on.body.active, true);
    assert.equal((await s.h.store.accountState(subject))?.disabledAt, null);

    // Hard delete: 204, gone, the account disabled.
    assert.equal((await s.send('DELETE', `/Users/${id}`)).status, 204);
    assert.equal((await s.send('GET', `/Users/${id}`)).status, 404);
    assert.equal((await s.send('DELETE', `/Users/${id}`)).status, 404);
    assert.notEqual((await s.h.store.accountState(subject))?.disabledAt, null);
    assert.ok(s.h.logs.some((r) => r.event === 'scim.user_deleted' && r.subject === subject));
    assert.equal((await s.send('DELETE', `/Groups/${gid}`)).status, 204);
  } finally {
    await s.close();
  }
}

test("sqlite: Entra ID's requests, string booleans and member removal forms", () => play());

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
test(
  "postgres: Entra ID's requests, string booleans and member removal forms",
  { skip: !available && SKIP_REASON },
  async () => play(await openPostgresStore(PG_URL, { schema: freshSchema() })),
);
