// SCIM's filter parser and PATCH (domain/scim_filter.ts, domain/scim_patch.ts) as pure functions:
// what parses and what is refused, and each operation form the providers send, applied to a copy.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isFailure } from '../../src/domain/scim_failure.ts';
import { parseFilter } from '../../src/domain/scim_filter.ts';
import { applyPatch, readPatch } from '../../src/domain/scim_patch.ts';
import { GROUP_SCHEMA, SCHEMA, USER_SCHEMA } from '../../src/domain/scim_schema.ts';

test('filters: eq joined by and, operators in any case; anything else is invalidFilter', () => {
  assert.deepEqual(parseFilter('userName eq "a@b.c"'), [{ path: 'userName', value: 'a@b.c' }]);
  assert.deepEqual(parseFilter('userName EQ "x" AND externalId eq "y\\"z"'), [
    { path: 'userName', value: 'x' },
    { path: 'externalId', value: 'y"z' },
  ]);
  assert.deepEqual(parseFilter(`${SCHEMA.user}:userName eq "x"`), [{ path: `${SCHEMA.user}:userName`, value: 'x' }]);
  assert.deepEqual(parseFilter('active eq true'), [{ path: 'active', value: true }]);
  for (const bad of [
    'userName eq "a" or userName eq "b"',
    'not (userName eq "a")',
    '(userName eq "a")',
    'userName co "a"',
    'userName pr',
    'userName eq a',
    'userName eq "a" and',
    'userName eq "unterminated',
    'userName  "a"',
    '',
    `userName eq "${'x'.repeat(1100)}"`,
  ]) {
    const parsed = parseFilter(bad);
    assert.ok(
      isFailure(parsed) && parsed.scimType === 'invalidFilter',
      `${bad.slice(0, 40)}: ${JSON.stringify(parsed)}`,
    );
  }
});

const id = '11111111-1111-4111-8111-111111111111';
const ops = (...Operations: unknown[]) => {
  const read = readPatch({ schemas: [SCHEMA.patchOp], Operations });
  assert.ok(!isFailure(read), JSON.stringify(read));
  return read;
};

test('PATCH: every form applies to a copy, in order', () => {
  const user = { userName: 'a', emails: [{ value: 'a@x', type: 'work', primary: true }], name: { givenName: 'A' } };
  const out = applyPatch(
    USER_SCHEMA,
    user,
    ops(
      { op: 'Replace', path: 'name.familyName', value: 'B' },
      { op: 'replace', value: { 'name.givenName': 'G', active: 'FALSE', id } },
      { op: 'add', path: 'emails[type eq "home"].value', value: 'h@x' },
      { op: 'Add', path: `${SCHEMA.enterprise}:department`, value: 'Ops' },
      { op: 'remove', path: 'emails[type eq "work"]' },
    ),
    id,
  );
  assert.deepEqual(out, {
    userName: 'a',
    name: { givenName: 'G', familyName: 'B' },
    active: false,
    emails: [{ type: 'home', value: 'h@x' }],
    [SCHEMA.enterprise]: { department: 'Ops' },
  });
  assert.deepEqual(user.name, { givenName: 'A' }, 'the original is left as it was');
  const group = { displayName: 'g', members: [{ value: 'm1' }, { value: 'm2' }] };
  assert.deepEqual(applyPatch(GROUP_SCHEMA, group, ops({ op: 'remove', path: 'members[value eq "m1"]' }), id), {
    displayName: 'g',
    members: [{ value: 'm2' }],
  });
  assert.deepEqual(
    applyPatch(
      GROUP_SCHEMA,
      group,
      ops({ op: 'Remove', path: 'members', value: [{ value: 'm2' }, { value: 'm9' }] }),
      id,
    ),
    { displayName: 'g', members: [{ value: 'm1' }] },
  );
  assert.deepEqual(
    applyPatch(GROUP_SCHEMA, group, ops({ op: 'add', path: 'members', value: { value: 'm1' } }), id),
    group,
  );
});

test('PATCH: a failing operation fails the whole, with its scimType', () => {
  const user = { userName: 'a' };
  const cases: Array<[unknown, string]> = [
    [{ op: 'replace', path: 'nope', value: 1 }, 'invalidPath'],
    [{ op: 'replace', path: 'emails.value', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: 'userName[value eq "x"]', value: 'x' }, 'invalidPath'],
    [{ op: 'replace', path: 'emails[kind eq "x"].value', value: 'x' }, 'invalidFilter'],
    [{ op: 'replace', path: 'active', value: 'yes' }, 'invalidValue'],
    [{ op: 'replace', path: 'displayName', value: 7 }, 'invalidValue'],
    [{ op: 'remove' }, 'noTarget'],
    [{ op: 'remove', path: 'userName' }, 'mutability'],
    [{ op: 'replace', value: { id: 'another' } }, 'mutability'],
    [{ op: 'replace', value: 'not an object' }, 'invalidSyntax'],
  ];
  for (const [op, scimType] of cases) {
    const out = applyPatch(USER_SCHEMA, user, ops({ op: 'replace', path: 'displayName', value: 'ok' }, op), id);
    assert.ok(isFailure(out) && out.scimType === scimType, `${JSON.stringify(op)}: ${JSON.stringify(out)}`);
  }
  for (const body of [
    { Operations: [] },
    { schemas: ['x'], Operations: [{ op: 'add' }] },
    { Operations: [{ op: 'copy' }] },
    [],
  ])
    assert.ok(isFailure(readPatch(body)), JSON.stringify(body));
});
