// The run view's page around streamed content: escaped, and honest when the content ends short.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { html } from '../../src/views/html.ts';
import { SHORT_NOTE_SLOT, STREAM_SLOT, streamedPage, textDecoderFor, wholePage } from '../../src/views/stream.ts';

const page = html`<pre>${STREAM_SLOT}</pre>${SHORT_NOTE_SLOT}<p>end</p>`;
const utf8 = () => textDecoderFor('text/plain');

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield new TextEncoder().encode(part);
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(stream).text();
}

test('all the bytes shown: the content escaped between head and tail, and no note', async () => {
  const expected = '<pre>&lt;a&gt;&amp;b</pre><p>end</p>';
  assert.equal(await wholePage(page, chunks('<a>', '&b'), utf8(), 5), expected);
  assert.equal(await text(streamedPage(page, chunks('<a>', '&b'), utf8(), 5)), expected);
});

test('fewer bytes than the run holds (deleted while sent): the page says the content is incomplete', async () => {
  for (const shown of [
    await wholePage(page, chunks('abc'), utf8(), 10),
    await text(streamedPage(page, chunks('abc'), utf8(), 10)),
  ]) {
    assert.match(
      shown,
      /^<pre>abc<\/pre><p><strong>The content above is incomplete: the run was deleted while this page was being sent\.<\/strong><\/p><p>end<\/p>$/,
    );
  }
  assert.match(await wholePage(page, chunks(), utf8(), 3), /<pre><\/pre><p><strong>The content above is incomplete/);
});
