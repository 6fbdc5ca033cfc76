import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html, htmlText, raw, splitAt } from '../../src/views/html.ts';

test('every interpolation is escaped', () => {
  const evil = `<script>alert("x")</script>&'`;
  assert.equal(
    html`<p title="${evil}">${evil}</p>`.value,
    '<p title="&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;">&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#39;</p>',
  );
});

test('nested templates and arrays are not escaped twice; raw is the one way around escaping', () => {
  const items = ['<a>', 'b'].map((x) => html`<li>${x}</li>`);
  // eslint-disable-next-line no-restricted-syntax -- the test of the door itself, with a constant
  const page = html`<ul>${items}</ul>${raw('<svg></svg>')}`;
  assert.equal(page.value, '<ul><li>&lt;a&gt;</li><li>b</li></ul><svg></svg>');
});

test('htmlText escapes exactly as an interpolation does; splitAt cuts markup around a slot', () => {
  const text = `<b>&'"\0`;
  assert.equal(htmlText(text).value, html`${text}`.value);
  const slot = html`<!--slot-->`;
  assert.deepEqual(
    splitAt(html`<pre>${slot}</pre>`, slot)?.map((part) => part.value),
    ['<pre>', '</pre>'],
  );
  assert.equal(splitAt(html`<pre></pre>`, slot), undefined);
});

test('characters a valid document cannot hold are shown as symbols; tab, line feed, form feed and CR stay', () => {
  assert.equal(html`${'a\0b\x07c\x1bd\x7fe'}`.value, 'a␀b␇c␛d␡e');
  assert.equal(html`${'\x85 \uFDD0 \uFFFF \u{10FFFF} \u{1F600}'}`.value, '\uFFFD \uFFFD \uFFFD \uFFFD \u{1F600}');
  assert.equal(html`${'\t\n\f\r<'}`.value, '\t\n\f\r&lt;');
});

test('null, undefined and false render as nothing; numbers as text', () => {
  assert.equal(html`${null}${undefined}${false}${0}`.value, '0');
});

test('escaping leaves plain text as it is and replaces each special character once', () => {
  assert.equal(html`${'plain text 123'}`.value, 'plain text 123');
  assert.equal(html`${'&&<<>>""\'\'x'}`.value, '&amp;&amp;&lt;&lt;&gt;&gt;&quot;&quot;&#39;&#39;x');
  assert.equal(html`${'é<ü>'}`.value, 'é&lt;ü&gt;');
});

test('relative times: just now, minutes, hours and days, past and future', async () => {
  const { relative, time } = await import('../../src/views/format.ts');
  const now = Date.UTC(2026, 10, 22, 12, 0, 0);
  assert.equal(relative(now - 30_000, now), 'just now');
  assert.equal(relative(now - 3 * 60_000, now), '3 minutes ago');
  assert.equal(relative(now - 60 * 60_000, now), '1 hour ago');
  assert.equal(relative(now + 86_400_000, now), 'in 1 day');
  assert.equal(relative(now + 86_400_000 - 25, now), 'in 1 day', 'a day minted a moment ago');
  assert.equal(relative(now + 90 * 60_000, now), 'in 2 hours');
  assert.equal(relative(now + 40 * 60_000, now), 'in 40 minutes');
  assert.equal(relative(now + 59 * 60_000 + 50_000, now), 'in 1 hour');
  assert.equal(relative(now - 3 * 86_400_000 - 5, now), '3 days ago');
  assert.equal(
    String(time(now - 120_000, now)),
    '2 minutes ago (<time datetime="2026-11-22T11:58:00.000Z">2026-11-22 11:58:00 UTC</time>)',
  );
});
