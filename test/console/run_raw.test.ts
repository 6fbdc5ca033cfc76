// GET /runs/{device}/{id}/raw (docs/contract.md section 10): exactly the stored bytes, as a download that
// is never rendered, scoped, audited.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { enrollDevice, harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

test('the raw download: the stored bytes exactly, with the headers of docs/contract.md section 10, and audited', async () => {
  const h = await harness();
  try {
    const { device, credential } = await enrollDevice(h, ACCOUNTS.user.subject);
    // Bytes that are not text, and a size spanning several stored chunks.
    const bytes = Buffer.concat([Buffer.from('<script>alert(1)</script>\r\n\0\xff'), randomBytes(700 * 1024)]);
    assert.equal((await upload(h, credential, 'binary.bin', bytes, 'full', 'text/html')).status, 201);
    const { cookie } = h.signIn(ACCOUNTS.user);
    const res = await h.request(`/runs/${device}/binary.bin/raw`, { headers: { cookie } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/octet-stream');
    assert.equal(res.headers.get('content-disposition'), `attachment; filename="binary.bin.txt"`);
    assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('content-length'), String(bytes.length));
    assert.ok(Buffer.from(await res.arrayBuffer()).equals(bytes), 'byte for byte');
    assert.ok(
      h.logs.some(
        (r) =>
          r.event === 'run.downloaded' &&
          r.account === ACCOUNTS.user.subject &&
          r.device === device &&
          r.run === 'binary.bin',
      ),
    );
    await h.flushAudit();
    const trail = [];
    for await (const batch of h.store.auditBatches({ event: 'run.downloaded' }, 10)) trail.push(...batch);
    assert.equal(trail.length, 1);
    const page = await (await h.request(`/runs/${device}/binary.bin`, { headers: { cookie } })).text();
    assert.ok(page.includes(`href="/runs/${device}/binary.bin/raw" download`), 'the run view links the download');
    // Other pages keep the policy of docs/contract.md section 5 exactly.
    const other = await h.request('/runs', { headers: { cookie } });
    assert.equal(other.headers.get('content-security-policy'), "default-src 'none'");
  } finally {
    await h.close();
  }
});

test('the raw download is scoped (404 as for a missing run), guarded, and logs nothing when refused', async () => {
  const h = await harness();
  try {
    const { device, credential } = await enrollDevice(h, ACCOUNTS.user.subject);
    await upload(h, credential, 'mine', 'x');
    const other = await h.request(`/runs/${device}/mine/raw`, { headers: { cookie: h.signIn(ACCOUNTS.other).cookie } });
    assert.equal(other.status, 404);
    assert.equal(await other.text(), 'run not found\n');
    const missing = await h.request(`/runs/${device}/nope/raw`, {
      headers: { cookie: h.signIn(ACCOUNTS.admin).cookie },
    });
    assert.equal(missing.status, 404);
    const anonymous = await h.request(`/runs/${device}/mine/raw`);
    assert.equal(anonymous.status, 303);
    assert.equal(anonymous.headers.get('location'), '/login');
    assert.equal(h.logs.filter((r) => r.event === 'run.downloaded').length, 0);
  } finally {
    await h.close();
  }
});
