// GET /accounts (docs/contract.md section 9): each account that signed in, its last sign-in, and device
// and run counts that follow what was done, each linked to the account's devices; keyset-paged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_PASSWORD, enrollDevice, form, harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

/** The table's rows as "subject devices runs". */
function rows(body: string): string[] {
  return [
    ...body.matchAll(
      /<td><code>([^<]+)<\/code><\/td>.*?aria-label="[^"]*"\s*>([0-9]+) devices?<\/a\s*>\s*<\/td>\s*<td>([0-9]+)<\/td>/gs,
    ),
  ].map(([, subject, devices, runs]) => `${subject} ${devices} ${runs}`);
}

test('GET /accounts: counts follow enrollments, uploads, deletions; links go to each account’s devices', async () => {
  const h = await harness();
  try {
    const login = await h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD }));
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    await h.store.recordSignIn({
      subject: 'oidc:user-1',
      display: 'Uma User',
      lastSignInAt: h.clock.now() - 60_000,
      admin: false,
    });
    await h.store.recordSignIn({
      subject: 'oidc:user-2',
      display: 'Otto <Other>',
      lastSignInAt: h.clock.now() - 120_000,
      admin: false,
    });
    const uma = await enrollDevice(h, 'oidc:user-1', 'uma-1');
    await enrollDevice(h, 'oidc:user-1', 'uma-2');
    for (const id of ['a', 'b', 'c']) assert.equal((await upload(h, uma.credential, id, id)).status, 201);

    let res = await h.request('/accounts', { headers: { cookie } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    let body = await res.text();
    assert.deepEqual(rows(body), ['local:admin 0 0', 'oidc:user-1 2 3', 'oidc:user-2 0 0']);
    assert.match(
      body,
      /<a\s+href="\/devices\?owner=oidc%3Auser-1"\s+aria-label="2 devices of Uma User"\s*>2 devices<\/a/,
    );
    assert.match(body, /Otto &lt;Other&gt;/);
    assert.match(
      body,
      /<td><a href="\/accounts\/local%3Aadmin">admin<\/a><\/td>\s*<td><code>local:admin<\/code><\/td>\s*<td>just now/,
    );

    const csrf = /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '';
    assert.equal((await h.request(`/runs/${uma.device}/a/delete`, form({ csrf }, cookie))).status, 303);
    await enrollDevice(h, 'oidc:user-2', 'otto-1');
    body = await (await h.request('/accounts', { headers: { cookie } })).text();
    assert.deepEqual(rows(body), ['local:admin 0 0', 'oidc:user-1 2 2', 'oidc:user-2 1 0']);
    assert.doesNotMatch(body, /Earlier sign-ins/);

    // A bad cursor is the page with its alert and no accounts (docs/contract.md section 22).
    res = await h.request('/accounts?before=x', { headers: { cookie } });
    assert.equal(res.status, 400);
    assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
    body = await res.text();
    assert.match(body, /<div role="alert">[\s\S]*bad page cursor/);
    assert.deepEqual(rows(body), []);
  } finally {
    await h.close();
  }
});

test('GET /accounts: keyset pages of 50, most recent sign-in first, each account once', async () => {
  const h = await harness();
  try {
    for (let i = 0; i < 120; i++)
      await h.store.recordSignIn({
        subject: `oidc:u${i}`,
        display: `U ${i}`,
        lastSignInAt: 1000 + Math.floor(i / 2),
        admin: false,
      });
    const cookie = h.signIn(ACCOUNTS.admin).cookie;
    const seen: string[] = [];
    let path = '/accounts';
    const ranges: string[] = [];
    for (let n = 0; n < 5 && path; n++) {
      const body = await (await h.request(path, { headers: { cookie } })).text();
      seen.push(...rows(body).map((r) => r.split(' ')[0] ?? ''));
      // Each page says which rows it shows of how many (docs/contract.md section 22).
      ranges.push(/Accounts [0-9–]+ of [0-9,]+/.exec(body)?.[0] ?? '');
      path =
        /<a href="(\/accounts\?from=[0-9]+&amp;before=[^"]+)">Earlier sign-ins<\/a>/
          .exec(body)?.[1]
          ?.replaceAll('&amp;', '&') ?? '';
    }
    assert.deepEqual(ranges, ['Accounts 1–50 of 120', 'Accounts 51–100 of 120', 'Accounts 101–120 of 120']);
    assert.equal(seen.length, 120);
    assert.equal(new Set(seen).size, 120);
    assert.deepEqual(seen.slice(0, 2), ['oidc:u119', 'oidc:u118']);
  } finally {
    await h.close();
  }
});
