// Labels in the console (docs/contract.md section 12), on both stores: the device page's form, the
// device list's filter and column, and the bulk label and unlabel; each refusal names the label
// and changes nothing; every change is one `device.labelled` event.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import type { Viewer } from '../../src/domain/accounts.ts';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { enrollDevice, type Harness } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { runScenarios, type Scenario } from '../support/scenario.ts';

const ADMIN: Viewer = { subject: 'local:admin', admin: true };

/** The user's device (site=berlin, line=3), the other account's (site=berlin) and a third of the user's (site=paris). */
async function fleet(h: Harness) {
  const mine = (await enrollDevice(h, 'oidc:user-1', 'mine')).device;
  const theirs = (await enrollDevice(h, 'oidc:user-2', 'theirs')).device;
  const paris = (await enrollDevice(h, 'oidc:user-1', 'paris')).device;
  await h.store.changeLabels(ADMIN, mine, { replace: { site: 'berlin', line: '3' } });
  await h.store.changeLabels(ADMIN, theirs, { replace: { site: 'berlin' } });
  await h.store.changeLabels(ADMIN, paris, { replace: { site: 'paris' } });
  return { mine, theirs, paris };
}

const labelsOf = async (h: Harness, id: string) => ({ ...(await h.store.deviceVisibleTo(ADMIN, id))?.labels });

const MINE = { line: '3', site: 'berlin' };

/** Every forbidden shape of a line, and the words its refusal says. */
const FORBIDDEN: Array<[what: string, line: string, says: RegExp]> = [
  ['no =', 'site', /label "site": write it as key=value/],
  ['an empty key', '=berlin', /label "=berlin": a label key/],
  ['an upper-case key', 'Site=berlin', /label "Site=berlin": a label key/],
  ['a key starting with -', '-site=x', /label "-site=x": a label key/],
  ['a key starting with .', '.site=x', /label ".site=x": a label key/],
  ['a key of 64 characters', `${'k'.repeat(64)}=x`, /: a label key is 1 to 63/],
  ['a value of 64 characters', `site=${'v'.repeat(64)}`, /: a label value is at most 63/],
  ['a space in the value', 'site=new york', /label "site=new york": a label value/],
  ['a second = in the value', 'site=a=b', /label "site=a=b": a label value/],
  ['a slash', 'site=a/b', /a label value/],
  ['markup', 'site=<b>x</b>', /label "site=&lt;b&gt;x&lt;\/b&gt;"|label "site=<b>x<\/b>"/],
  ['a non-ASCII letter', 'site=münchen', /label "site=m\?nchen": a label value/],
  ['a bidi override', 'site=a\u202eb', /label "site=a\?b": a label value/],
  ['a NUL', 'site=a\u0000b', /label "site=a\?b": a label value/],
  ['a key given twice', 'site=a\nsite=b', /label "site=b": the key site is given twice/],
  // With the form's first line (rack=a-1), the 21st label.
  ['21 labels', Array.from({ length: 20 }, (_, i) => `k${i}=v`).join('\n'), /label "k19=v": a device has at most 20/],
];

const scenarios: Scenario[] = [
  {
    name: 'the device page shows the labels and the form with the current set, one a line',
    path: (_h, f) => `/devices/${f.mine}`,
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      '<dt>Labels</dt>',
      '<li><code>line=3</code></li>',
      '<li><code>site=berlin</code></li>',
      /<form method="post" action="\/devices\/[^"]+\/labels">/,
      /<textarea id="labels" name="labels"[^>]*>line=3\nsite=berlin<\/textarea/,
      'Save labels',
    ],
  },
  {
    name: 'the owner replaces the set: 303 to the device, saved, one event with the keys changed',
    method: 'POST',
    path: (_h, f) => `/devices/${f.mine}/labels`,
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', labels: 'site=berlin\r\n\r\n  rack=a-7 \r\nline=4' },
    status: 303,
    location: /^\/devices\/[^/]+$/,
    events: ['device.labelled'],
    logs: [{ event: 'device.labelled', account: 'oidc:user-1', keys: 'line,rack' }],
    after: async (h, _r, _b, f) => {
      assert.deepEqual(await labelsOf(h, f.mine ?? ''), { line: '4', rack: 'a-7', site: 'berlin' });
      await h.flushAudit();
      const [record] = (await h.store.auditPage({ event: 'device.labelled' }, { limit: 5 })).items;
      assert.deepEqual([record?.account, record?.device, record?.detail], ['oidc:user-1', f.mine, 'keys=line,rack']);
    },
  },
  {
    name: 'an empty form removes every label',
    method: 'POST',
    path: (_h, f) => `/devices/${f.mine}/labels`,
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', labels: '' },
    status: 303,
    events: ['device.labelled'],
    logs: [{ event: 'device.labelled', keys: 'line,site' }],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.mine ?? ''), {}),
  },
  {
    name: 'the same set again changes nothing and emits nothing',
    method: 'POST',
    path: (_h, f) => `/devices/${f.mine}/labels`,
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', labels: 'site=berlin\nline=3' },
    status: 303,
    events: [],
  },
  {
    name: "an admin labels another account's device",
    method: 'POST',
    path: (_h, f) => `/devices/${f.theirs}/labels`,
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', labels: 'site=oslo' },
    status: 303,
    events: ['device.labelled'],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.theirs ?? ''), { site: 'oslo' }),
  },
  {
    name: "another account's device: 404, whatever the form, nothing changed",
    method: 'POST',
    path: (_h, f) => `/devices/${f.theirs}/labels`,
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', labels: 'Bad Label' },
    status: 404,
    events: [],
    contains: ['device not found'],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.theirs ?? ''), { site: 'berlin' }),
  },
  {
    name: 'a wrong csrf changes nothing',
    method: 'POST',
    path: (_h, f) => `/devices/${f.mine}/labels`,
    as: 'user',
    setup: fleet,
    form: { csrf: 'wrong', labels: 'site=x' },
    status: 403,
    events: [],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.mine ?? ''), MINE),
  },
  ...FORBIDDEN.map(([what, line, says]): Scenario => ({
    name: `a label with ${what}: 400 with the device page, the message beside the field naming it, nothing changed`,
    method: 'POST',
    path: (_h, f) => `/devices/${f.mine}/labels`,
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', labels: `rack=a-1\n${line}` },
    status: 400,
    events: [],
    // docs/contract.md section 22: the page, the set as sent, the message beside the field (escaped).
    headersMatch: { 'content-type': /^text\/html/ },
    contains: [
      /<textarea id="labels"[^>]*aria-invalid="true" aria-describedby="labels-rules labels-error">rack=a-1\n/,
      /<strong id="labels-error">labels refused, nothing changed: /,
      new RegExp(says.source.replaceAll('"', '&quot;')),
    ],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.mine ?? ''), MINE),
  })),
  // The device list.
  {
    name: 'the device list shows each device’s labels and a label field in the filter form',
    path: '/devices',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      '<th scope="col">Labels</th>',
      '<li><code>site=paris</code></li>',
      /<label for="label-1">Label \(key=value, or key for any value\), 1 of up to 5<\/label>/,
      /<input id="label-1" name="label" value=""/,
      '<option value="label">Set a label (key=value)</option>',
      '<option value="unlabel">Remove a label (key)</option>',
    ],
  },
  {
    name: 'the label filter: all must hold, scoped, named in the summary, kept in the form',
    path: '/devices?label=site%3Dberlin&label=line',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      '1 of 1 device that you own, labelled “site=berlin”, labelled “line”',
      /<input id="label-1" name="label" value="site=berlin"/,
      /<input id="label-2" name="label" value="line"/,
      /<input id="label-3" name="label" value=""/,
    ],
    after: (_h, _r, body, f) => {
      assert.ok(body.includes(f.mine ?? '-'));
      assert.ok(!body.includes(f.paris ?? '-') && !body.includes(f.theirs ?? '-'));
    },
  },
  {
    name: 'the paging links keep the label filters',
    path: '/devices?label=site',
    as: 'admin',
    setup: async (h) => {
      for (let i = 0; i < 55; i++) {
        const id = (await enrollDevice(h, 'oidc:user-1', `d${i}`)).device;
        await h.store.changeLabels(ADMIN, id, { replace: { site: `s${i % 2}` } });
      }
    },
    status: 200,
    contains: [/<a href="\/devices\?label=site&amp;from=51&amp;before=[0-9]+">Older devices<\/a>/],
    after: async (h, _r, body) => {
      const next =
        /href="(\/devices\?label=site&amp;from=51&amp;before=[0-9]+)"/.exec(body)?.[1]?.replaceAll('&amp;', '&') ?? '';
      const res = await h.request(next, { headers: { cookie: h.signIn({ ...ADMIN, display: 'admin' }).cookie } });
      const page = await res.text();
      assert.match(page, /51–55 of 55 devices, labelled “site”/);
      assert.match(page, /<a href="\/devices\?label=site">Newest devices<\/a>/);
    },
  },
  {
    name: 'a bad label filter: 400, the list with the message beside the field naming it',
    path: '/devices?label=site&label=Site%3Dx',
    as: 'user',
    setup: fleet,
    status: 400,
    contains: ['<strong id="label-1-error">label &quot;Site=x&quot;: a label key'],
  },
  {
    name: 'more than five label filters: 400',
    path: `/devices?${Array.from({ length: 6 }, (_, i) => `label=k${i}`).join('&')}`,
    as: 'user',
    status: 400,
    contains: ['label may be given at most 5 times'],
  },
  // Bulk label and unlabel.
  {
    name: 'bulk label: each device as alone, one event each change, the summary counts',
    method: 'POST',
    path: '/devices/bulk',
    as: 'admin',
    setup: fleet,
    form: {
      csrf: '$csrf',
      action: 'label',
      label: 'site=oslo',
      device: ['$fixture.mine', '$fixture.theirs', 'd_nope', '$fixture.mine'],
    },
    status: 303,
    location: '/devices',
    events: ['device.labelled', 'device.labelled'],
    after: async (h, res, _b, f) => {
      assert.deepEqual(await labelsOf(h, f.mine ?? ''), { line: '3', site: 'oslo' });
      assert.deepEqual(await labelsOf(h, f.theirs ?? ''), { site: 'oslo' });
      assert.deepEqual(await labelsOf(h, f.paris ?? ''), { site: 'paris' }, 'not selected');
      const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const cookie = `${h.signIn({ ...ADMIN, display: 'admin' }).cookie}; ${notice}`;
      const page = await (await h.request('/devices', { headers: { cookie } })).text();
      assert.match(page, /2 devices labelled; 1 not found or not yours: nothing done\./);
    },
  },
  {
    name: 'bulk unlabel: a key removed where it is; the others are unchanged',
    method: 'POST',
    path: '/devices/bulk',
    as: 'admin',
    setup: fleet,
    form: {
      csrf: '$csrf',
      action: 'unlabel',
      label: 'line',
      device: ['$fixture.mine', '$fixture.theirs', '$fixture.paris'],
    },
    status: 303,
    events: ['device.labelled'],
    logs: [{ event: 'device.labelled', account: 'local:admin', keys: 'line' }],
    after: async (h, res, _b, f) => {
      assert.deepEqual(await labelsOf(h, f.mine ?? ''), { site: 'berlin' });
      const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const cookie = `${h.signIn({ ...ADMIN, display: 'admin' }).cookie}; ${notice}`;
      const page = await (await h.request('/devices', { headers: { cookie } })).text();
      assert.match(page, /1 device unlabelled; 2 already so\./);
    },
  },
  ...(
    [
      ['label', 'Site=x', /label "Site=x": a label key/],
      ['label', 'site', /label "site": write it as key=value/],
      ['unlabel', 'site=x', /label "site=x": a label key/],
      ['label', '', /label "": write it as key=value/],
    ] as const
  ).map(([action, label, says]): Scenario => ({
    name: `bulk ${action} with "${label}": 400 naming it, no device touched`,
    method: 'POST',
    path: '/devices/bulk',
    as: 'admin',
    setup: fleet,
    form: { csrf: '$csrf', action, label, device: '$fixture.mine' },
    status: 400,
    events: [],
    contains: [says],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.mine ?? ''), MINE),
  })),
  {
    name: 'bulk label is for administrators',
    method: 'POST',
    path: '/devices/bulk',
    as: 'user',
    setup: fleet,
    form: { csrf: '$csrf', action: 'label', label: 'site=x', device: '$fixture.mine' },
    status: 403,
    events: ['access.admin_refused'],
    after: async (h, _r, _b, f) => assert.deepEqual(await labelsOf(h, f.mine ?? ''), MINE),
  },
];

runScenarios('labels', scenarios);
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
runScenarios('labels', scenarios, {
  name: 'postgres',
  open: () => openPostgresStore(PG_URL, { schema: freshSchema() }),
  skip: !available && SKIP_REASON,
});
