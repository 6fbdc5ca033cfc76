/**
 * The attacker's spellings of an internal address as a webhook target, against a real server on
 * a loopback port (security review finding 3, issue 34): every one is refused by the API and by
 * the console, naming the URL, and no endpoint is added, so the sender never tries them.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Live, live } from '../support/live.ts';

let l: Live;
before(async () => {
  l = await live();
});
after(() => l.close());

const METADATA = [
  'https://169.254.169.254/latest/meta-data/',
  'https://2852039166/',
  'https://0251.0376.0251.0376/',
  'https://0xa9fea9fe/',
  'https://0xa9.0xfe.0xa9.0xfe/',
  'https://169.254.43518/',
  'https://169.16689662/',
  'https://169.254.169.254./',
  'https://%31%36%39.254.169.254/',
  'https://[::ffff:169.254.169.254]/',
  'https://[::ffff:a9fe:a9fe]/',
  'https://[0:0:0:0:0:ffff:a9fe:a9fe]/',
  'https://[::169.254.169.254]/',
  'https://[::a9fe:a9fe]/',
  'https://[::ffff:0:a9fe:a9fe]/',
  'https://[64:ff9b::a9fe:a9fe]/',
  'https://[64:ff9b::169.254.169.254]/',
  'https://[0064:FF9B:0000:0000:0000:0000:A9FE:A9FE]/',
  'https://[64:ff9b:1::a9fe:a9fe]/',
  'https://[2002:a9fe:a9fe::]/',
  'https://[2001:0:4136:e378:8000:63bf:5601:5601]/',
  'https://[fe80::a9fe:a9fe]/',
  'https://[fe80::1%25eth0]/',
  'https://[fec0::a9fe:a9fe]/',
  'https://[fd00:ec2::254]/',
];
const LOOPBACK = [
  'https://127.0.0.1/',
  'https://2130706433/',
  'https://0x7f.1/',
  'https://0177.0.0.1/',
  'https://[::1]/',
  'https://[::ffff:7f00:1]/',
  'https://[64:ff9b::7f00:1]/',
  'https://[2002:7f00:1::]/',
  'https://[::]/',
  'https://0.0.0.0/',
  'https://0/',
];
const TARGETS = [...METADATA, ...LOOPBACK];

test('hostile webhook targets: the API refuses every spelling of an internal address, naming the url', async () => {
  const token = await l.accessToken('targets');
  const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  for (const url of TARGETS) {
    const res = await fetch(`${l.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url, events: ['*'] }),
    });
    const problem = (await res.json()) as { field?: string };
    assert.deepEqual([res.status, problem.field], [400, 'url'], url);
  }
  const list = (await (await fetch(`${l.url}/api/v1/webhooks`, { headers: auth })).json()) as { items: unknown[] };
  assert.deepEqual(list.items, [], 'nothing was added');
});

test('hostile webhook targets: the console refuses every spelling of an internal address', async () => {
  const { cookie, csrf } = await l.signIn();
  for (const url of TARGETS) {
    const res = await fetch(`${l.url}/webhooks`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, url, event: '*' }),
      redirect: 'manual',
    });
    const text = await res.text();
    assert.equal(res.status, 400, `${url}: ${text.slice(0, 200)}`);
    assert.match(text, /url is not a webhook target: /, url);
  }
  const page = await (await fetch(`${l.url}/webhooks`, { headers: { cookie } })).text();
  assert.match(page, /There are no endpoints\./);
  assert.deepEqual(
    l.logs.filter((r) => r.level === 'error' || r.event === 'webhook.created').map((r) => r.event),
    [],
  );
});
