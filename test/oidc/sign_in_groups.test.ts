// An account's groups at its OIDC sign-in (docs/contract.md section 19): the groups claim
// (PADDOCK_OIDC_GROUPS_CLAIM) of its latest sign-in, cleaned: a lone string is a list of one,
// anything else that is not a list of strings counts as no groups, names that are not group names
// are dropped, at most 256 kept (the first, in the claim's order); each cleaning is logged.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { groupsFromClaim } from '../../src/oidc/groups.ts';
import { fakeClock } from '../support/fake_clock.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { harness } from '../support/harness.ts';
import { signInWith } from '../support/oidc_sign_in.ts';

const many = (n: number) => Array.from({ length: n }, (_, i) => `g${i}`);

const rows: Array<[string, unknown, string[], string | undefined, number]> = [
  ['absent', undefined, [], undefined, 0],
  ['a list of names, kept in order, each once', ['ops', 'Dev Team', 'ops'], ['ops', 'Dev Team'], undefined, 0],
  ['a lone string is a list of one', 'ops', ['ops'], undefined, 0],
  ['a number', 42, [], 'not_a_list', 1],
  ['an object', { ops: true }, [], 'not_a_list', 1],
  ['a list holding a non-string', ['ops', 7, null], [], 'not_a_list', 3],
  ['a list of lists', [['ops']], [], 'not_a_list', 1],
  [
    'empty, control characters and long names dropped',
    ['', 'ok', 'a\nb', 'x'.repeat(129), 'y'.repeat(128)],
    ['ok', 'y'.repeat(128)],
    'invalid_names',
    3,
  ],
  ['257 groups: the first 256 kept', many(257), many(256), 'too_many', 1],
  ['10,000 groups: the first 256 kept', many(10_000), many(256), 'too_many', 10_000 - 256],
];

for (const [name, claim, groups, problem, dropped] of rows) {
  test(`groups claim cleaned: ${name}`, () => {
    assert.deepEqual(groupsFromClaim(claim), { groups, problem, dropped });
  });
}

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

async function oidcHarness(groupsClaim = 'groups') {
  return harness({
    clock,
    oidc: clientFor(provider, clock),
    config: {
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      groupsClaim,
      adminGroup: 'paddock-admins',
    },
  });
}

test("sign-in: the account's groups are the claim's, replaced at each sign-in; admin still comes from the token only", async () => {
  const h = await oidcHarness('roles');
  try {
    assert.equal((await signInWith(h, provider, 'g-1', { roles: ['ops', 'dev'], groups: ['ignored'] })).status, 303);
    assert.deepEqual((await h.store.accountGroups('oidc:g-1')).toSorted(), ['dev', 'ops']);
    assert.equal((await signInWith(h, provider, 'g-1', { roles: ['ops'] })).status, 303);
    assert.deepEqual(await h.store.accountGroups('oidc:g-1'), ['ops']);
    assert.equal((await signInWith(h, provider, 'g-1', {})).status, 303);
    assert.deepEqual(await h.store.accountGroups('oidc:g-1'), [], 'no claim: no groups');
    // A group in the store named as the admin group makes no administrator: only the token's claim does.
    await h.store.setAccountGroups('oidc:g-1', ['paddock-admins']);
    assert.equal((await signInWith(h, provider, 'g-1', { roles: ['ops'] })).status, 303);
    assert.ok(h.logs.some((r) => r.event === 'login.oidc.succeeded' && r.account === 'oidc:g-1' && r.admin === false));
    assert.equal(h.logs.filter((r) => r.event === 'login.oidc.groups_cleaned').length, 0);
  } finally {
    await h.close();
  }
});
