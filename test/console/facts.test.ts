// Facts in the console (docs/contract.md section 16), on both stores: the device page shows what the
// device reported and when, escaped; the device list filters on fact=key=value (a bad filter names
// the fact) and asks the devices it shows for a run; the dashboard shows administrators the devices
// by client version.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { Viewer } from '../../src/domain/accounts.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { enrollDevice, type Harness } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { runScenarios, type Scenario } from '../support/scenario.ts';

const ADMIN: Viewer = { subject: 'local:admin', admin: true };

/**
 * The user's device (linux, client 1.4.0, a hostname of markup), the other account's (linux,
 * 1.3.0), a third of the user's (darwin, 1.4.0) and a fourth that never reported.
 */
async function fleet(h: Harness) {
  const mine = (await enrollDevice(h, 'oidc:user-1', 'mine')).device;
  const theirs = (await enrollDevice(h, 'oidc:user-2', 'theirs')).device;
  const mac = (await enrollDevice(h, 'oidc:user-1', 'mac')).device;
  const silent = (await enrollDevice(h, 'oidc:user-1', 'silent')).device;
  const now = h.clock.now();
  await h.store.reportFacts(mine, { os: 'linux', client_version: '1.4.0', hostname: '<b>gate</b> & co' }, now);
  await h.store.reportFacts(theirs, { os: 'linux', client_version: '1.3.0' }, now);
  await h.store.reportFacts(mac, { os: 'darwin', client_version: '1.4.0' }, now);
  h.clock.advance(3 * 60_000);
  return { mine, theirs, mac, silent };
}

/** The names in the device list's table (the cell before the owner's). */
const names = (body: string) =>
  [...body.matchAll(/<th scope="row"><a href="\/devices\/[^"]+">([^<]+)<\/a>/g)].map((m) => m[1]).sort();

const scenarios: Scenario[] = [
  {
    name: 'the device page shows the facts it reported and when, escaped',
    path: (_h, f) => `/devices/${f.mine}`,
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      '<h2>Facts</h2>',
      /Reported by the device 3 minutes ago \(/,
      '<caption>',
      '<th scope="row"><code>client_version</code></th>',
      '<td>1.4.0</td>',
      '<td>&lt;b&gt;gate&lt;/b&gt; &amp; co</td>',
    ],
    notContains: ['<b>gate</b>'],
  },
  {
    name: 'a device that never reported says so',
    path: (_h, f) => `/devices/${f.silent}`,
    as: 'user',
    setup: fleet,
    status: 200,
    contains: ['This device has not reported any facts'],
  },
  {
    name: 'the device list filters on fact=key=value, every fact holding, scoped, and names the filter',
    path: '/devices?fact=os%3Dlinux&fact=client_version%3D1.4.0',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      /reporting “os=linux”, reporting “client_version=1\.4\.0”/,
      'name="fact" value="os=linux"',
      /Fact \(key=value\), 3 of up to 5/,
    ],
    after: (_h, _r, body) => assert.deepEqual(names(body), ['mine']),
  },
  {
    name: "a user's fact filter reaches only its own devices",
    path: '/devices?fact=os%3Dlinux',
    as: 'user',
    setup: fleet,
    status: 200,
    after: (_h, _r, body) => assert.deepEqual(names(body), ['mine']),
  },
  {
    name: 'the list asks every device a fact filter matches for a run, with their number',
    path: '/devices?fact=client_version%3D1.4.0',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      /Request a run from every device matching these filters: 2 devices/,
      '<input type="hidden" name="fact" value="client_version=1.4.0" />',
    ],
  },
  {
    name: 'a collection asked from a fact filter reaches the devices that reported it',
    method: 'POST',
    path: '/collections',
    as: 'user',
    setup: fleet,
    form: {
      csrf: '$csrf',
      match: 'filter',
      fact: ['client_version=1.4.0', 'os=darwin'],
      privacy: 'minimal',
      reason: 'inventory',
    },
    status: 303,
    events: ['collection.created'],
    after: async (h) => {
      const [c] = (await h.store.collectionsVisibleTo(ADMIN, { limit: 5 })).items;
      const targets = (await h.store.collectionTargets(ADMIN, c?.id ?? '', { limit: 10 })).items;
      const mac = (await h.store.devicesVisibleTo(ADMIN, { limit: 10 }, { staleBefore: 0, q: 'mac' })).items[0]?.id;
      assert.deepEqual(
        targets.map((t) => t.device),
        [mac],
      );
    },
  },
  ...(
    [
      ['no value', 'os', /fact &quot;os&quot;: write the filter as key=value/],
      ['an upper-case key', 'OS%3Dlinux', /fact &quot;OS&quot;: a fact key is 1 to 63/],
      ['a control character', 'os%3Dli%00nux', /fact &quot;os&quot;: a fact value/],
      ['256 characters', `os%3D${'x'.repeat(256)}`, /fact &quot;os&quot;: a fact value/],
    ] as const
  ).map(([what, fact, says]): Scenario => ({
    name: `a bad fact filter is a 400 naming it: ${what}`,
    path: `/devices?fact=${fact}`,
    as: 'user',
    setup: fleet,
    status: 400,
    // The list itself, the message beside the field (docs/contract.md section 22).
    contains: [/<strong id="fact-1-error">/, says],
  })),
  {
    name: 'more than five fact filters',
    path: `/devices?${Array.from({ length: 6 }, (_, i) => `fact=k${i}%3Dv`).join('&')}`,
    as: 'user',
    status: 400,
    contains: ['fact may be given at most 5 times'],
  },
  {
    name: 'the dashboard shows administrators the devices by client version, most common first',
    path: '/',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      '<h2>Client versions</h2>',
      /<a href="\/devices\?fact=client_version%3D1\.4\.0">1\.4\.0<\/a>\s*<meter min="0" max="2" value="2"[^>]*>2 devices<\/meter>[\s\S]*>1\.3\.0<\/a>\s*<meter min="0" max="2" value="1"[^>]*>1 device<\/meter>/,
    ],
  },
  {
    name: 'other accounts do not see the client versions',
    path: '/',
    as: 'user',
    setup: fleet,
    status: 200,
    notContains: ['Client versions'],
  },
];

runScenarios('facts', scenarios);
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
runScenarios('facts', scenarios, {
  name: 'postgres',
  open: () => openPostgresStore(PG_URL, { schema: freshSchema() }),
  skip: !available && SKIP_REASON,
});
