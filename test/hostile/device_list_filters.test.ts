// The device list's new parameters (docs/contract.md section 22), attacked: `seen=` values that are
// almost right, repeated or huge, a sort with something after it, a forged page position `from`,
// markup in the filters that comes back in the form and in the forms' `return`. Nothing answers
// 500, a bad value is a 400 page (a problem in the API) that shows it escaped, a forged position
// only changes the words of the summary, and the totals never count another account's devices.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { apiToken } from '../support/api_table.ts';
import { enrollDevice, harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const BAD_SEEN = [
  'not:',
  'not:not:5m',
  '5M',
  '%205m',
  '5m%20',
  '%00',
  '-5m',
  '0m',
  '1e3m',
  'not%3A5m%00',
  '6m',
  'not:30d',
  '<script>',
  'x'.repeat(10_000),
];

test('seen= and sort= refuse what is almost right, escaped, with the page; the API with a problem', async () => {
  const h = await harness();
  try {
    await enrollDevice(h, ACCOUNTS.user.subject, 'lab-one');
    const { cookie } = h.signIn(ACCOUNTS.admin);
    const token = await apiToken(h, 'admin');
    for (const value of [...BAD_SEEN.map((v) => `seen=${v}`), 'seen=5m&seen=1h', 'sort=last_seen_oldest%3BDROP']) {
      const page = await h.request(`/devices?${value}`, { headers: { cookie } });
      assert.equal(page.status, 400, value);
      const body = await page.text();
      assert.match(page.headers.get('content-type') ?? '', /^text\/html/, value);
      assert.doesNotMatch(body, /<script>/, value);
      assert.match(body, /aria-invalid="true"/, value);
      const api = await h.request(`/api/v1/devices?${value}`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(api.status, 400, value);
      assert.match(api.headers.get('content-type') ?? '', /^application\/problem\+json/, value);
    }
  } finally {
    await h.close();
  }
});

test('a forged page position changes only the words; markup in a filter comes back escaped in every form', async () => {
  const h = await harness();
  try {
    for (let i = 0; i < 52; i++) await enrollDevice(h, ACCOUNTS.user.subject, `lab-${i}`);
    await enrollDevice(h, ACCOUNTS.other.subject, 'lab-theirs');
    const { cookie } = h.signIn(ACCOUNTS.user);
    const first = await (await h.request('/devices?q=lab', { headers: { cookie } })).text();
    const next = /href="(\/devices\?[^"]*before=[0-9]+)"/.exec(first)?.[1]?.replaceAll('&amp;', '&') ?? '';
    assert.match(first, /1–50 of 52 devices that you own/, 'the total counts only what the account may see');
    for (const from of ['-1', '0', '1e9', '%3Cb%3E', '9999999999', '51&from=7', '']) {
      const res = await h.request(next.replace('from=51', `from=${from}`), { headers: { cookie } });
      assert.equal(res.status, 200, from);
      const body = await res.text();
      assert.doesNotMatch(body, /<b>|9999999999|1e9/, from);
      assert.match(body, /2 older, of 52 devices/, from);
    }
    const markup = encodeURIComponent('"><svg onload=x>');
    const res = await h.request(`/devices?q=${markup}&seen=not:5m`, { headers: { cookie } });
    assert.equal(res.status, 200);
    const body = await res.text();
    assert.doesNotMatch(body, /"><svg/);
    assert.match(body, /value="&quot;&gt;&lt;svg onload=x&gt;"/);
  } finally {
    await h.close();
  }
});
