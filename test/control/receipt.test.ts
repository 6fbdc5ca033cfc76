// The device's receipt of what it removed (issue 14, item 6): counts per rule, its version and a
// digest of its rules, never content; parsed strictly, stored, and shown beside the level check.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { receiptFor } from '../../src/device_client/client.ts';
import { formatReceipt, parseReceipt, rulesDigest } from '../../src/domain/receipt.ts';
import { applyPrivacy } from '../../src/domain/redaction.ts';
import { enrollDevice, harness } from '../support/harness.ts';

const ORIGINAL = 'temp=21\npassword: hunter2\ncontact alice@example.com from 10.0.0.7\n';

test('the client counts what it replaced, per rule, on the original bytes; never content', () => {
  const header = receiptFor(new TextEncoder().encode(ORIGINAL), 'redacted') ?? '';
  const receipt = parseReceipt(header);
  assert.ok(receipt, header);
  assert.equal(receipt.rules, rulesDigest());
  assert.match(receipt.rules, /^sha256:[0-9a-f]{64}$/);
  assert.equal(receipt.counts.text_field, 1, header);
  assert.equal(receipt.counts.email, 1);
  assert.equal(receipt.counts.ipv4, 1);
  assert.doesNotMatch(header, /hunter2|alice|10\.0\.0\.7/);
  assert.equal(receiptFor(new TextEncoder().encode(ORIGINAL), 'full'), undefined, 'full removes nothing');
  assert.equal(formatReceipt(receipt), header, 'one grammar both ways');
});

test('a receipt is parsed strictly', () => {
  const d = `sha256:${'a'.repeat(64)}`;
  assert.deepEqual(parseReceipt(`v=1;client=0.1.0;rules=${d};email=2`), {
    client: '0.1.0',
    rules: d,
    counts: { email: 2 },
  });
  for (const bad of [
    '',
    `v=2;client=0.1.0;rules=${d}`,
    `client=0.1.0;v=1;rules=${d}`,
    `v=1;client=;rules=${d}`,
    `v=1;client=0.1.0;rules=sha256:${'a'.repeat(63)}`,
    `v=1;client=0.1.0;rules=md5:${'a'.repeat(64)}`,
    `v=1;client=0.1.0;rules=${d};email=01`,
    `v=1;client=0.1.0;rules=${d};email=-1`,
    `v=1;client=0.1.0;rules=${d};email=1;email=2`,
    `v=1;client=0.1.0;rules=${d};secrets=1`,
    `v=1;client=0.1.0;rules=${d};email`,
    `v=1;client=0.1.0;rules=${d};email=1;`,
    `v=1;client=0.1.0;rules=${d};email=1=2`,
    `v=1;client=${'x'.repeat(1100)};rules=${d}`,
  ])
    assert.equal(parseReceipt(bad), undefined, bad);
});

test('the server stores the receipt with the run and shows it beside the level check; a bad one is 400', async () => {
  const h = await harness();
  try {
    const { device, credential } = await enrollDevice(h, 'oidc:user-1');
    const original = new TextEncoder().encode(ORIGINAL);
    const { body } = applyPrivacy(original, 'text/plain', 'redacted');
    const put = (id: string, receipt: string, level = 'redacted') =>
      h.control(`/v1/runs/${id}`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${credential}`,
          'x-privacy-level': level,
          'x-redaction-receipt': receipt,
          'content-type': 'text/plain',
        },
        body,
      });
    assert.equal((await put('with-receipt', receiptFor(original, 'redacted') ?? '')).status, 201);
    const bad = await put('bad-receipt', 'v=1;client=x');
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /^X-Redaction-Receipt must be v=1;client=/);
    const full = await put('full-receipt', receiptFor(original, 'redacted') ?? '', 'full');
    assert.equal(full.status, 400);
    assert.match(await full.text(), /: a full upload removes nothing\n$/);
    const admin = { subject: 'local:admin', admin: true };
    assert.equal(await h.store.runVisibleTo(admin, device, 'bad-receipt'), undefined);
    const stored = await h.store.runVisibleTo(admin, device, 'with-receipt');
    assert.equal(stored?.receipt?.counts.email, 1);
    const page = await (
      await h.request(`/runs/${device}/with-receipt`, { headers: { cookie: h.signIn(admin).cookie } })
    ).text();
    assert.match(page, /<h2>Device's receipt<\/h2>/);
    assert.match(page, /the same rules as this server/);
    assert.ok(page.indexOf('Level check') < page.indexOf("Device's receipt"), 'beside the level check');
  } finally {
    await h.close();
  }
});
