// The chart and QR code SVGs are built with the html tag: their text is escaped, and the QR code
// still decodes to its text (with the decoder the browser suite uses on the rendered page).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { barChart } from '../../src/views/chart_svg.ts';
import { qrSvg } from '../../src/views/qr_svg.ts';
import { decodeQrSvg } from '../e2e/qr.ts';

test('the QR code SVG decodes to the link, and its title is escaped', () => {
  const link = 'paddock://enroll?server=127.0.0.1:8443&pin=sha256/abc+/=&token=' + 'A'.repeat(43);
  const svg = qrSvg(link, { title: 'Link <&> "QR"' }).value;
  assert.equal(decodeQrSvg(svg), link);
  assert.match(
    svg,
    /aria-label="Link &lt;&amp;&gt; &quot;QR&quot;" shape-rendering="crispEdges"><title>Link &lt;&amp;&gt; &quot;QR&quot;<\/title>/,
  );
  assert.doesNotMatch(svg, /paddock:/, 'the text itself never appears in the SVG');
});

test('the bar chart: one bar a day, sized by the tag from numbers, titles and label escaped', () => {
  const svg = barChart([0, 2, 4], ['<a>', 'b', 'c'], 'six & more').value;
  assert.match(svg, /^<svg viewBox="0 0 54 60" width="108" height="120" role="img" aria-label="six &amp; more">/);
  assert.match(
    svg,
    /<rect x="0" y="59" width="14" height="1" fill="#bbb"><title>&lt;a&gt;: 0 uploads<\/title><\/rect>/,
  );
  assert.match(
    svg,
    /<rect x="36" y="0" width="14" height="60" fill="#245"><title>c: 4 uploads<\/title><\/rect><\/svg>$/,
  );
});
