// The level check in the console (docs/contract.md section 10): /runs?flagged=yes lists only flagged runs,
// scoped, and keeps the filter when paging; the list marks flagged runs; the run view says what was
// found, per rule, never the matched text, and that nothing was changed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const LEAKY = 'password=hunter2 mail bob@example.com and carol@example.com\n';

async function fleet() {
  const h = await harness();
  const uma = await enrollDevice(h, ACCOUNTS.user.subject, 'Uma Laptop');
  const otto = await enrollDevice(h, ACCOUNTS.other.subject, 'Otto Phone');
  await upload(h, uma.credential, 'clean', 'temperature=21.5\n', 'redacted');
  await upload(h, uma.credential, 'leaky', LEAKY, 'redacted');
  await upload(h, uma.credential, 'whole', LEAKY, 'full');
  await upload(h, otto.credential, 'otto-leaky', 'ip 10.0.0.7\n', 'minimal');
  await h.levelCheck.idle();
  return { h, uma, otto };
}

function get(h: Harness, who: keyof typeof ACCOUNTS, path: string) {
  return h.request(path, { headers: { cookie: h.signIn(ACCOUNTS[who]).cookie } });
}

const ids = (page: string) => [...page.matchAll(/<a href="\/runs\/[^/]+\/([^"]+)">/g)].map((m) => m[1]);

test('/runs?flagged=yes lists only flagged runs, scoped; the list marks them; the form keeps the box ticked', async () => {
  const { h } = await fleet();
  try {
    const all = await (await get(h, 'admin', '/runs')).text();
    assert.deepEqual(ids(all), ['otto-leaky', 'whole', 'leaky', 'clean']);
    assert.equal([...all.matchAll(/<strong>flagged<\/strong>/g)].length, 2);
    assert.ok(all.includes('<input type="checkbox" id="flagged" name="flagged" value="yes" />'));
    const res = await get(h, 'admin', '/runs?flagged=yes');
    assert.equal(res.status, 200);
    const flagged = await res.text();
    assert.deepEqual(ids(flagged), ['otto-leaky', 'leaky']);
    assert.match(
      flagged,
      /Runs 1–2 of 2 \(counted within the last few seconds\), flagged by the level check,\s+newest first\./,
    );
    assert.ok(flagged.includes('<input type="checkbox" id="flagged" name="flagged" value="yes" checked />'));
    assert.doesNotMatch(flagged, /<script|style=/);
    assert.deepEqual(ids(await (await get(h, 'user', '/runs?flagged=yes')).text()), ['leaky']);
    assert.deepEqual(ids(await (await get(h, 'admin', '/runs?flagged=&privacy=redacted')).text()), ['leaky', 'clean']);
    assert.deepEqual(ids(await (await get(h, 'admin', '/runs?flagged=yes&privacy=minimal')).text()), ['otto-leaky']);
  } finally {
    await h.close();
  }
});

test('paging the flagged list keeps the filter', async () => {
  const { h, uma } = await fleet();
  try {
    for (let i = 0; i < 60; i++)
      await upload(h, uma.credential, `more-${String(i).padStart(2, '0')}`, LEAKY, 'redacted');
    await h.levelCheck.idle();
    const first = await (await get(h, 'admin', '/runs?flagged=yes')).text();
    const older = /<a href="(\/runs\?flagged=yes&amp;before=[0-9]+)">Older runs<\/a>/.exec(first);
    assert.ok(older, 'the older link keeps flagged=yes');
    const second = await (await get(h, 'admin', (older[1] ?? '').replaceAll('&amp;', '&'))).text();
    assert.ok(ids(second).includes('leaky'));
    assert.ok(!ids(second).includes('clean'));
  } finally {
    await h.close();
  }
});

test('a bad flagged value is a 400 with the page, the message beside the box (section 22); a repeated one too', async () => {
  const { h } = await fleet();
  try {
    for (const path of ['/runs?flagged=no', '/runs?flagged=1', '/runs?flagged=YES']) {
      const res = await get(h, 'admin', path);
      assert.equal(res.status, 400, path);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const page = await res.text();
      assert.ok(page.includes('aria-invalid="true" aria-describedby="flagged-error"'), path);
      assert.ok(page.includes('<strong id="flagged-error">flagged must be empty or yes</strong>'), path);
    }
    const repeated = await get(h, 'admin', '/runs?flagged=yes&flagged=yes');
    assert.equal(repeated.status, 400);
  } finally {
    await h.close();
  }
});

test('the run view says what the level check found, per rule, never the text, and that nothing was changed', async () => {
  const { h, uma, otto } = await fleet();
  try {
    const page = await (await get(h, 'user', `/runs/${uma.device}/leaky`)).text();
    const section = page.slice(page.indexOf('<h2>Level check</h2>'), page.indexOf('<h2>Content</h2>'));
    assert.ok(section.includes('<strong>Flagged:</strong>'));
    assert.match(section, /e-mail addresses<\/td>\s*<td>2<\/td>/);
    assert.match(section, /values of name=value and name: value fields[^<]*<\/td>\s*<td>1<\/td>/);
    assert.doesNotMatch(section, /IPv4/, 'rules that found nothing are not listed');
    assert.ok(section.includes('Nothing was changed'));
    for (const secret of ['hunter2', 'bob@example.com']) assert.ok(!section.includes(secret), secret);
    // The content is shown as uploaded, secrets and all.
    assert.ok(page.includes('password=hunter2 mail bob@example.com'));

    const clean = await (await get(h, 'user', `/runs/${uma.device}/clean`)).text();
    assert.match(clean, /found nothing that the device client(&#39;|')s rules for redacted would remove\./);
    const whole = await (await get(h, 'user', `/runs/${uma.device}/whole`)).text();
    assert.ok(whole.includes('Not checked: a run uploaded at full keeps everything'));
    const minimal = await (await get(h, 'admin', `/runs/${otto.device}/otto-leaky`)).text();
    assert.match(minimal, /IPv4 addresses<\/td>\s*<td>1<\/td>/);
    assert.match(minimal, /fields a minimal summary does not hold[^<]*<\/td>\s*<td>1<\/td>/);

    await h.store.putRun({
      device: uma.device,
      id: 'unchecked',
      contentType: 'text/plain',
      privacy: 'redacted',
      size: 1,
      uploadedAt: h.clock.now(),
      body: new Uint8Array([120]),
      sha256: 'x',
    });
    const unchecked = await (await get(h, 'user', `/runs/${uma.device}/unchecked`)).text();
    assert.ok(unchecked.includes('Not checked yet.'));
  } finally {
    await h.close();
  }
});
