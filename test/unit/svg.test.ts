// The chart and QR code SVGs are built with the html tag: their text is escaped, and the QR code
// still decodes to its text (with the decoder the browser suite uses on the rendered page). The
// dashboard's chart and client versions are drawn once per snapshot.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { stackedBarChart, tickStep } from '../../src/views/chart_svg.ts';
import { qrSvg } from '../../src/views/qr_svg.ts';
import { uploadsSection } from '../../src/views/uploads_chart.ts';
import { clientVersionsSection } from '../../src/views/client_versions.ts';
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

test('the stacked bar chart: labelled axes, a legend, each part sized from numbers, every text escaped', () => {
  const svg = stackedBarChart({
    labels: ['<a>', 'b', 'c'],
    series: [
      { name: 'low & high', fill: '#111', values: [0, 2, 4] },
      { name: 'other', fill: '#999', values: [1, 0, 4] },
    ],
    xLabel: 'Day "UTC"',
    yLabel: 'Uploads <n>',
    summary: 'six & more',
    title: (i, series, n) => `${['<a>', 'b', 'c'][i] ?? ''}: ${n} ${series}`,
  }).value;
  assert.match(
    svg,
    /^<svg viewBox="0 0 186 244" width="186" height="244" role="img" aria-label="six &amp; more"><title>six &amp; more<\/title>/,
  );
  // The y axis: ticks of 0, 2, 4, 6, 8 (the tallest bar is 8), the plot 160 high from y=28.
  for (const [v, y] of [
    [0, 188],
    [2, 148],
    [4, 108],
    [8, 28],
  ] as const)
    assert.match(svg, new RegExp(`<text x="53" y="${y + 3}" font-size="12" text-anchor="end">${v}</text>`));
  assert.match(svg, />Uploads &lt;n&gt;<\/text><\/svg>$/);
  assert.match(svg, /rotate\(-90 /, 'the y label is turned along its axis');
  assert.match(svg, />Day &quot;UTC&quot;<\/text>/);
  // The legend, and each label under its bar.
  assert.match(svg, /fill="#111" \/><text [^>]+>low &amp; high<\/text>/);
  assert.match(svg, /text-anchor="middle">&lt;a&gt;<\/text>/);
  // A part of zero draws nothing; the others stack, each with its title.
  assert.doesNotMatch(svg, /&lt;a&gt;: 0 low/);
  assert.match(
    svg,
    /<rect x="65" y="168" width="28" height="20" fill="#999"><title>&lt;a&gt;: 1 other<\/title><\/rect>/,
  );
  assert.match(
    svg,
    /<rect x="141" y="108" width="28" height="80" fill="#111"><title>c: 4 low &amp; high<\/title><\/rect>/,
  );
  assert.match(svg, /<rect x="141" y="28" width="28" height="80" fill="#999"><title>c: 4 other<\/title><\/rect>/);
});

test('the y axis steps by 1, 2 or 5 times a power of ten, about four ticks', () => {
  assert.deepEqual([0, 3, 7, 10, 45, 120, 999, 17_280].map(tickStep), [1, 1, 2, 5, 20, 50, 500, 5000]);
});

test("the dashboard's sections are drawn once per snapshot (and per day for the chart), never from another snapshot", () => {
  const DAY = 86_400_000;
  const now = 20_000 * DAY + 3_600_000;
  const snapshot = { full: [1, 2], redacted: [0, 1], minimal: [3, 0] };
  const first = uploadsSection(snapshot, now);
  assert.equal(uploadsSection(snapshot, now + 60_000), first, 'the same snapshot, the same day: kept');
  assert.match(first.value, /<time datetime="2024-10-04">2024-10-04<\/time>/);
  const nextDay = uploadsSection(snapshot, now + DAY);
  assert.notEqual(nextDay, first, 'a new day: drawn again, its dates moved');
  assert.match(nextDay.value, /<time datetime="2024-10-05">2024-10-05<\/time>/);
  const later = uploadsSection({ ...snapshot, full: [1, 7] }, now);
  assert.notEqual(later.value, first.value, 'a new snapshot: its own numbers');
  assert.match(later.value, /<td>7<\/td>/);
  const versions = [{ value: '1.2.0', devices: 3 }];
  const drawn = clientVersionsSection(versions);
  assert.equal(clientVersionsSection(versions), drawn);
  assert.match(clientVersionsSection([{ value: '1.3.0', devices: 1 }]).value, /1\.3\.0/);
  assert.doesNotMatch(drawn.value, /1\.3\.0/);
});
