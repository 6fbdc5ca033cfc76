// Okta's documented SCIM 2.0 sequence (developer.okta.com, "SCIM 2.0 protocol reference" and
// "Build a SCIM provisioning integration"), replayed on both stores: the connection test, the
// userName lookup before a create, the create, the deactivation by PATCH active=false (Okta never
// sends DELETE) which disables the account, the reactivation, and group push with members added,
// removed (members[value eq "…"]) and the group renamed, its devices following the new name.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { ADMIN, scimClient } from './client.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

async function play(store?: Store) {
  const s = await scimClient(store);
  try {
    // Test connection: Okta lists two users.
    const first = await s.send('GET', '/Users?startIndex=1&count=2');
    assert.equal(first.status, 200);
    assert.deepEqual(first.body, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 0,
      startIndex: 1,
      itemsPerPage: 0,
      Resources: [],
    });
    // Does the user exist? (Okta's filter, with its own escaping of the address.)
    const lookup = await s.send(
      'GET',
      `/Users?filter=${encodeURIComponent('userName eq "test.user@okta.local"')}&startIndex=1&count=100`,
    );
    assert.equal(lookup.body.totalResults, 0);
    // Create the user, as Okta's reference shows the body (a password it may send is never kept).
    const created = await s.send('POST', '/Users', {
      schemas: [USER],
      userName: 'test.user@okta.local',
      name: { givenName: 'Test', familyName: 'User' },
      emails: [{ primary: true, value: 'test.user@okta.local', type: 'work' }],
      displayName: 'Test User',
      locale: 'en-US',
      externalId: '00ujl29u0le5T6Aj10h7',
      groups: [],
      password: '1mz050nq',
      active: true,
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.id as string;
    assert.equal(created.headers.get('location'), `${s.h.config.baseUrl.replace(/\/$/, '')}/scim/v2/Users/${id}`);
    assert.equal(created.headers.get('etag'), 'W/"1"');
    assert.equal(created.body.userName, 'test.user@okta.local');
    assert.equal(created.body.active, true);
    assert.equal(created.body.password, undefined, 'a password is never kept');
    assert.deepEqual((created.body.meta as Record<string, string>).resourceType, 'User');
    assertNoSecret(s.h.logs);
    // Okta's userName check matches in any case.
    const found = await s.send('GET', `/Users?filter=${encodeURIComponent('userName eq "TEST.user@okta.local"')}`);
    assert.equal(found.body.totalResults, 1);
    assert.equal(((found.body.Resources as Array<{ id: string }>)[0] as { id: string }).id, id);
    // A second create of the same userName, in another case: 409 uniqueness.
    const again = await s.send('POST', '/Users', { schemas: [USER], userName: 'Test.User@okta.local' });
    assert.equal(again.status, 409);
    assert.equal(again.body.scimType, 'uniqueness');

    // The user signs in (linked as section 20 says), owns a device and has a live session.
    const subject = 'oidc:00ujl29u0le5T6Aj10h7';
    await s.h.store.recordSignIn({ subject, display: 'Test User', lastSignInAt: s.h.clock.now(), admin: false });
    assert.ok(await s.h.store.linkScimUser(id, subject));
    const { device } = await enrollDevice(s.h, subject, 'laptop');
    const session = s.h.signIn({ subject, admin: false });
    assert.equal((await s.h.request('/devices', { headers: { cookie: session.cookie } })).status, 200);

    // Deactivation: Okta's PATCH, replace without a path.
    const off = await s.send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: false } }],
    });
    assert.equal(off.status, 200, JSON.stringify(off.body));
    assert.equal(off.body.active, false);
    assert.notEqual((await s.h.store.accountState(subject))?.disabledAt, null, 'the account is disabled');
    const refused = await s.h.request('/devices', { headers: { cookie: session.cookie } });
    assert.notEqual(refused.status, 200, 'its session ended at once');
    assert.equal(
      (await s.h.store.deviceVisibleTo(ADMIN, device))?.owner,
      subject,
      'its device stays (no hand-over set)',
    );
    const events = s.h.logs.map((r) => r.event);
    assert.ok(events.includes('scim.user_deactivated') && events.includes('account.disabled'), events.join());
    // GET shows it inactive, as Okta's import reads it.
    assert.equal((await s.send('GET', `/Users/${id}`)).body.active, false);

    // Reactivation.
    const on = await s.send('PATCH', `/Users/${id}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    assert.equal(on.body.active, true);
    assert.equal((await s.h.store.accountState(subject))?.disabledAt, null, 'enabled again');

    // Group push: create the group with no member, add the user, rename, remove the user.
    const group = await s.send('POST', '/Groups', { schemas: [GROUP], displayName: 'Test SCIMv2', members: [] });
    assert.equal(group.status, 201, JSON.stringify(group.body));
    const gid = group.body.id as string;
    assert.deepEqual(group.body.members, []);
    const byName = await s.send(
      'GET',
      `/Groups?filter=${encodeURIComponent('displayName eq "Test SCIMv2"')}&startIndex=1&count=100`,
    );
    assert.equal(byName.body.totalResults, 1);
    const add = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id, display: 'test.user@okta.local' }] }],
    });
    assert.equal(add.status, 200, JSON.stringify(add.body));
    assert.deepEqual(
      (add.body.members as Array<{ value: string }>).map((m) => m.value),
      [id],
    );
    assert.deepEqual(await s.h.store.accountGroups(subject), ['Test SCIMv2'], 'the account is in the group at once');
    // The group owns a device; Okta renames the group with its id in the value.
    const { device: shared } = await enrollDevice(s.h, 'group:Test SCIMv2', 'shared');
    const renamed = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'replace', value: { id: gid, displayName: 'Test SCIMv2 renamed' } }],
    });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    assert.equal(renamed.body.displayName, 'Test SCIMv2 renamed');
    assert.equal(
      (await s.h.store.deviceVisibleTo(ADMIN, shared))?.owner,
      'group:Test SCIMv2 renamed',
      'its device follows',
    );
    assert.deepEqual(await s.h.store.accountGroups(subject), ['Test SCIMv2 renamed']);
    const remove = await s.send('PATCH', `/Groups/${gid}`, {
      schemas: [PATCH],
      Operations: [{ op: 'remove', path: `members[value eq "${id}"]` }],
    });
    assert.equal(remove.status, 200);
    assert.deepEqual(remove.body.members, []);
    assert.deepEqual(await s.h.store.accountGroups(subject), []);
    // Okta's PUT of the whole group, then its DELETE.
    const put = await s.send('PUT', `/Groups/${gid}`, {
      schemas: [GROUP],
      id: gid,
      displayName: 'Test SCIMv2 renamed',
      members: [{ value: id, display: 'test.user@okta.local' }],
    });
    assert.equal(put.status, 200, JSON.stringify(put.body));
    assert.equal((put.body.members as unknown[]).length, 1);
    assert.equal((await s.send('DELETE', `/Groups/${gid}`)).status, 204);
    assert.equal((await s.send('GET', `/Groups/${gid}`)).status, 404);
    assert.deepEqual(await s.h.store.accountGroups(subject), []);
    const all = s.h.logs.map((r) => r.event).filter((e) => e.startsWith('scim.'));
    assert.deepEqual(all, [
      'scim.user_created',
      'scim.user_updated',
      'scim.user_deactivated',
      'scim.user_updated',
      'scim.user_reactivated',
      'scim.group_created',
      'scim.group_updated',
      'scim.group_updated',
      'scim.group_updated',
      'scim.group_updated',
      'scim.group_deleted',
    ]);
    for (const r of s.h.logs.filter((r) => r.event.startsWith('scim.'))) assert.equal(r.account, ADMIN.subject);
  } finally {
    await s.close();
  }
}

function assertNoSecret(logs: ReadonlyArray<Record<string, unknown>>) {
  assert.doesNotMatch(JSON.stringify(logs), /1mz050nq|pdk_/, 'no password or token in any record');
}

test('sqlite: Okta provisions, deactivates, reactivates and pushes a group', () => play());

const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
test(
  'postgres: Okta provisions, deactivates, reactivates and pushes a group',
  { skip: !available && SKIP_REASON },
  async () => play(await openPostgresStore(PG_URL, { schema: freshSchema() })),
);
