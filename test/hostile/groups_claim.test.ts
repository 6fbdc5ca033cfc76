// The groups claim as an attacker shapes it (docs/contract.md section 19): an identity provider,
// or whoever writes its users' attributes, sends a claim of non-strings, nested objects, or 10,000
// long names. The sign-in goes through, the account keeps at most 256 well-formed groups (none when
// the claim is not a list of strings), and what was dropped is logged and audited.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fakeClock } from '../support/fake_clock.ts';
import { clientFor, type FakeProvider, startFakeProvider } from '../support/fake_oidc_provider.ts';
import { harness } from '../support/harness.ts';
import { signInWith } from '../support/oidc_sign_in.ts';

const clock = fakeClock();
let provider: FakeProvider;
before(async () => {
  provider = await startFakeProvider({ now: () => clock.now() });
});
after(() => provider.close());

const many = (n: number) => Array.from({ length: n }, (_, i) => `g${i}`);

const oidcHarness = () =>
  harness({
    clock,
    oidc: clientFor(provider, clock),
    config: {
      clientId: provider.clientId,
      clientSecret: provider.clientSecret,
      groupsClaim: 'groups',
      adminGroup: 'paddock-admins',
    },
  });

test('sign-in: a claim of non-strings or of 10,000 entries does not break it; what was dropped is logged and audited', async () => {
  const h = await oidcHarness();
  try {
    await h.store.setAccountGroups('oidc:g-2', ['ops']);
    const bad = await signInWith(h, provider, 'g-2', { groups: ['ops', 1, { admin: true }] });
    assert.equal(bad.status, 303, await bad.clone().text());
    assert.deepEqual(await h.store.accountGroups('oidc:g-2'), [], 'not a list of strings: no groups');
    const huge = await signInWith(h, provider, 'g-2', { groups: [...many(10_000), 'paddock-admins'] });
    assert.equal(huge.status, 303, await huge.clone().text());
    assert.deepEqual(await h.store.accountGroups('oidc:g-2'), many(256).toSorted());
    // Names just too long, thousands of them: all dropped, the sign-in still goes through.
    const long = await signInWith(h, provider, 'g-2', {
      groups: Array.from({ length: 4_000 }, (_, i) => `${'x'.repeat(125)}${String(i).padStart(4, '0')}`),
    });
    assert.equal(long.status, 303, await long.clone().text());
    assert.deepEqual(await h.store.accountGroups('oidc:g-2'), []);
    const cleaned = h.logs.filter((r) => r.event === 'login.oidc.groups_cleaned');
    assert.deepEqual(
      cleaned.map((r) => [r.account, r.reason, r.dropped, r.kept]),
      [
        ['oidc:g-2', 'not_a_list', 3, 0],
        ['oidc:g-2', 'too_many', 10_001 - 256, 256],
        ['oidc:g-2', 'invalid_names', 4_000, 0],
      ],
    );
    // The admin check reads the claim itself, past the 256 kept.
    assert.ok(h.logs.some((r) => r.event === 'login.oidc.succeeded' && r.admin === true));
    await h.flushAudit();
    const audited = await h.store.auditPage({ event: 'login.oidc.groups_cleaned' }, { limit: 10 });
    assert.equal(audited.items.length, 3);
  } finally {
    await h.close();
  }
});
