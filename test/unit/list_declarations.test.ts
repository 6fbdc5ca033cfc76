// Issue 22, point 4: each list's parameters are declared once (src/lists/), and the console's
// parser, the API's parser, the OpenAPI parameters, the filter form and the admin CLI's flags all
// cover exactly the declaration's parameters: none missing, none more.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPENAPI } from '../../src/api/openapi.ts';
import { type Values as CliValues, VERBS } from '../../src/cli/admin_commands.ts';
import type { ApiClient, Query } from '../../src/cli/api_client.ts';
import { flag } from '../../src/cli/sub_command.ts';
import { FAILURES } from '../../src/http/failures.ts';
import { AUDIT } from '../../src/lists/audit.ts';
import { DEVICES } from '../../src/lists/devices.ts';
import { ACCESS_TOKENS, ACCOUNTS, DEVICE_RUNS, ENROLL_TOKENS } from '../../src/lists/pages.ts';
import {
  type Kind,
  type ListDeclaration,
  type Parameters,
  type Values,
  listQueryString,
  parameterNames,
  parseApi,
  parseConsole,
} from '../../src/lists/parameters.ts';
import { RUNS } from '../../src/lists/runs.ts';
import { filterFields } from '../../src/views/list_parts.ts';
import { html } from '../../src/views/html.ts';

interface Row {
  name: string;
  list: ListDeclaration;
  /** The API path that lists it (its OpenAPI operation), if any. */
  api?: keyof typeof OPENAPI.paths;
  /** `paddock <verb> list`, if any. */
  cli?: string;
  /** Whether the console offers a filter form. */
  form?: boolean;
}

const LISTS: Row[] = [
  { name: 'devices', list: DEVICES, api: '/api/v1/devices', cli: 'devices', form: true },
  { name: 'runs', list: RUNS, api: '/api/v1/runs', cli: 'runs', form: true },
  { name: 'audit', list: AUDIT, api: '/api/v1/audit', cli: 'audit', form: true },
  { name: 'enrollment tokens', list: ENROLL_TOKENS, api: '/api/v1/enroll-tokens', cli: 'enroll-tokens' },
  { name: 'accounts', list: ACCOUNTS, api: '/api/v1/accounts' },
  { name: 'access tokens', list: ACCESS_TOKENS },
  { name: "a device's runs", list: DEVICE_RUNS },
];

/** A value each kind accepts: the first of these it takes, or an enumeration's first value. */
const CANDIDATES = ['abc', 'local:admin', 'd_1', '2026-01-01', 'yes', '12', '1.2', '1:local:a', 't_abc', 'os=linux'];
function sample(kind: Kind): string {
  const value = kind.values?.[0] ?? CANDIDATES.find((c) => kind.test(c));
  assert.ok(value !== undefined, `no sample for a ${kind.kind}`);
  return value;
}

/** A value no kind accepts: a control character. */
const BAD = '\u0001';

/** A valid value of each parameter: a repeatable one's is a list of one. */
function samples(list: ListDeclaration): Record<string, string | string[]> {
  return Object.fromEntries(
    Object.entries(list.parameters).map(([name, p]) => [name, p.repeat ? [sample(p.kind)] : sample(p.kind)]),
  );
}

/** A query of these values, a list's each given. */
function query(values: Record<string, string | readonly string[] | undefined>): URLSearchParams {
  return new URLSearchParams(
    Object.entries(values).flatMap(([name, v]) =>
      (v === undefined ? [] : typeof v === 'string' ? [v] : v).map((one): [string, string] => [name, one]),
    ),
  );
}

for (const { name, list, api, cli, form } of LISTS) {
  const names = parameterNames(list);

  test(`${name}: the console's and the API's parsers read exactly the declared parameters`, () => {
    for (const parse of [parseConsole, parseApi]) {
      // Every declared parameter is read: a bad value of each is refused, naming it and its failure.
      for (const [param, p] of Object.entries(list.parameters)) {
        const parsed = parse(list, new URLSearchParams({ [param]: BAD }));
        const detail = p.kind.explain?.(BAD);
        assert.deepEqual(parsed, {
          ok: false,
          fault: { problem: 'bad', parameter: param, failure: p.failure, ...(detail === undefined ? {} : { detail }) },
        });
        assert.ok(p.failure in FAILURES, p.failure);
        if (p.repeat) assert.ok(p.repeat.failure in FAILURES, p.repeat.failure);
      }
      // All of them at once, each valid, parse to exactly those values.
      const given = samples(list);
      const parsed = parse(list, query(given));
      assert.deepEqual(parsed, { ok: true, values: given });
      // And back: the paging link's query string carries every one of them.
      const { before, ...filters } = given;
      const link = listQueryString(
        list,
        filters as Values<Parameters>,
        typeof before === 'string' ? before : undefined,
      );
      assert.deepEqual(parse(list, new URLSearchParams(link)), { ok: true, values: given });
    }
    // Nothing more: a parameter the list does not declare is ignored by the console, refused by the API.
    assert.deepEqual(parseConsole(list, new URLSearchParams({ limit: '5' })), { ok: true, values: {} });
    assert.deepEqual(parseApi(list, new URLSearchParams({ limit: '5' })), {
      ok: false,
      fault: { problem: 'unknown', parameter: 'limit' },
    });
  });

  if (api !== undefined)
    test(`${name}: the OpenAPI document lists exactly the declared parameters`, () => {
      const operation = OPENAPI.paths[api] as { get: { parameters: Array<{ name: string; in: string }> } };
      assert.deepEqual(
        operation.get.parameters.map((p) => p.name),
        names,
      );
      assert.ok(operation.get.parameters.every((p) => p.in === 'query'));
    });

  if (cli !== undefined)
    test(`paddock ${cli} list: its flags are exactly the declared parameters, sent as the API's`, async () => {
      const command = VERBS[cli]?.list;
      assert.ok(command);
      // A flag is its parameter's name with `-` for `_` (owner_disabled: --owner-disabled).
      assert.deepEqual(Object.keys(command.options).sort(), [...names.map(flag), 'all'].sort());
      // Every flag given: the API is asked with every declared parameter, each value valid.
      const given = samples(list);
      const flags: CliValues = Object.fromEntries(
        Object.entries(list.parameters).map(([param, p]) => [flag(param), p.kind.kind === 'yes' ? true : given[param]]),
      );
      const asked: Query[] = [];
      const client: ApiClient = {
        get: async (_path, query) => (asked.push(query ?? {}), { items: [] }),
        send: async () => assert.fail('a list only reads'),
        download: async () => assert.fail('a list only reads'),
      };
      await command.run(client, [], flags);
      assert.equal(asked.length, 1);
      assert.deepEqual(asked[0], given);
      assert.deepEqual(parseApi(list, query(asked[0] ?? {})), {
        ok: true,
        values: given,
      });
    });

  test(`${name}: the filter form asks for every declared filter and nothing else`, () => {
    const fields = html`${filterFields(list, {}, { admin: true })}`.value;
    const asked = [...fields.matchAll(/ name="([^"]+)"/g)].map((m) => m[1]);
    // A repeatable filter has one blank field while none is given.
    const filters = Object.entries(list.parameters)
      .filter(([, p]) => p.kind.kind !== 'cursor')
      .map(([param]) => param);
    assert.deepEqual(asked, form ? filters : []);
  });
}

test('a repeated parameter: the console refuses it as the list declares, the API as a repeated parameter', () => {
  const twice = (name: string) =>
    new URLSearchParams([
      [name, 'a'],
      [name, 'b'],
    ]);
  assert.deepEqual(parseConsole(DEVICES, twice('status')), {
    ok: false,
    fault: { problem: 'repeated', parameter: 'status', failure: 'repeatedParameter' },
  });
  assert.deepEqual(parseConsole(ACCOUNTS, twice('before')), {
    ok: false,
    fault: { problem: 'repeated', parameter: 'before', failure: 'badCursor' },
  });
  assert.deepEqual(parseApi(ACCOUNTS, twice('before')), {
    ok: false,
    fault: { problem: 'repeated', parameter: 'before', failure: 'repeatedParameter' },
  });
});

test('blank values: no filter on lists with a form, a bad cursor on lists of a cursor only', () => {
  assert.deepEqual(parseConsole(DEVICES, new URLSearchParams('q=&status=&before=')), { ok: true, values: {} });
  assert.deepEqual(parseConsole(AUDIT, new URLSearchParams('actor=%20&event=')), { ok: true, values: {} });
  assert.deepEqual(parseConsole(ENROLL_TOKENS, new URLSearchParams('before=')), {
    ok: false,
    fault: { problem: 'bad', parameter: 'before', failure: 'badCursor' },
  });
});

test('a day range: until before since is refused, naming until', () => {
  for (const list of [RUNS, AUDIT] as ListDeclaration[]) {
    assert.deepEqual(parseApi(list, new URLSearchParams('since=2026-02-02&until=2026-02-01')), {
      ok: false,
      fault: { problem: 'bad', parameter: 'until', failure: 'badDateRange' },
    });
    assert.equal(parseApi(list, new URLSearchParams('since=2026-02-02&until=2026-02-02')).ok, true);
  }
});

test('a repeatable parameter (label): up to its most, each checked and named, kept in order by the paging link', () => {
  const labels = (...values: string[]) => new URLSearchParams(values.map((v): [string, string] => ['label', v]));
  for (const parse of [parseConsole, parseApi]) {
    assert.deepEqual(parse(DEVICES, labels('site=berlin', 'line')), {
      ok: true,
      values: { label: ['site=berlin', 'line'] },
    });
    assert.deepEqual(parse(DEVICES, labels('a', 'b', 'c', 'd', 'e', 'f')), {
      ok: false,
      fault: { problem: 'repeated', parameter: 'label', failure: 'tooManyLabelFilters' },
    });
    const bad = parse(DEVICES, labels('site=berlin', 'Site=x'));
    assert.equal(bad.ok, false);
    assert.match(
      !bad.ok && bad.fault.problem === 'bad' ? (bad.fault.detail ?? '') : '',
      /^label "Site=x": a label key/,
    );
  }
  // Blank fields of the form are no filter; the link keeps the others, in order.
  assert.deepEqual(parseConsole(DEVICES, labels('', 'line', '')), { ok: true, values: { label: ['line'] } });
  assert.equal(listQueryString(DEVICES, { label: ['b=2', 'a'] }, '12'), '?label=b%3D2&label=a&before=12');
  // The form: a field per label given and one more, each labelled with its number, until five.
  const two = html`${filterFields(DEVICES, { label: ['b=2', 'a'] }, { admin: false })}`.value;
  assert.deepEqual(
    [...two.matchAll(/id="(label-[0-9])"/g)].map((m) => m[1]),
    ['label-1', 'label-2', 'label-3'],
  );
  const five = html`${filterFields(DEVICES, { label: ['a', 'b', 'c', 'd', 'e'] }, { admin: false })}`.value;
  assert.equal([...five.matchAll(/ name="label"/g)].length, 5);
});
