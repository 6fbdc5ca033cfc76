// A collection's page and the list once it is closed (issue 45): a closed collection says when it
// closed, not when it would have expired; a declined target shows the end of the failed command's
// standard error that the device sent, folded, escaped, its format characters made visible.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createCollection } from '../../src/actions/collections.ts';
import { enrollDevice, harness, type Harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const admin = { subject: 'local:admin', admin: true, client: '192.0.2.1' };

async function page(h: Harness, path: string): Promise<string> {
  const res = await h.request(path, { headers: { cookie: h.signIn(ACCOUNTS.admin).cookie } });
  assert.equal(res.status, 200, path);
  return res.text();
}

async function declined(h: Harness, stderr: string | undefined) {
  const d = await enrollDevice(h, 'oidc:ann');
  const made = await createCollection(h as never, admin, {
    privacy: 'full',
    reason: 'check',
    scope: { devices: [d.device] },
  });
  assert.ok(made.ok);
  const asked = await h.control('/v1/requests', { headers: { authorization: `Bearer ${d.credential}` } });
  const [r] = ((await asked.json()) as { requests: Array<{ id: string }> }).requests;
  const res = await h.control(`/v1/requests/${r?.id ?? ''}/decline`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.credential}`, 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'command exited with status 2', ...(stderr === undefined ? {} : { stderr }) }),
  });
  assert.equal(res.status, 204);
  return made.collection.id;
}

test('an open collection says when it expires; once closed, when it closed and nothing of expiry', async () => {
  const h = await harness();
  try {
    const d = await enrollDevice(h, 'oidc:ann');
    const made = await createCollection(h as never, admin, {
      privacy: 'full',
      reason: 'open one',
      scope: { devices: [d.device] },
    });
    assert.ok(made.ok);
    assert.match(await page(h, `/collections/${made.collection.id}`), /<dt>Expires<\/dt>\s*<dd>in 1 day/);
    h.clock.advance(60_000);
    const id = await declined(h, undefined);
    h.clock.advance(3 * 60_000);
    const closed = await page(h, `/collections/${id}`);
    assert.doesNotMatch(closed, /Expires|in 1 day/);
    assert.match(closed, /<dt>State<\/dt>\s*<dd>closed 3 minutes ago/);
    const list = await page(h, '/collections');
    const rowOf = (c: string) =>
      new RegExp(`<tr>\\s*<td><a href="/collections/${c}">[\\s\\S]*?</tr>`).exec(list)?.[0] ?? '';
    assert.match(rowOf(id), /<td>closed 3 minutes ago/);
    assert.doesNotMatch(rowOf(id), /in 1 day/);
    assert.match(rowOf(made.collection.id), /<td>in 1 day/);
  } finally {
    await h.close();
  }
});

test("a declined target shows the command's standard error folded, escaped, format characters as U+FFFD", async () => {
  const h = await harness();
  try {
    const id = await declined(h, 'line <b>1</b>\n\tcan\u202Et open "disk"\n');
    const shown = await page(h, `/collections/${id}`);
    assert.match(shown, /declined: “command exited with status 2”/);
    assert.match(shown, /<details>\s*<summary>Standard error, its last 2 lines<\/summary>/);
    assert.ok(
      shown.includes('<pre>line &lt;b&gt;1&lt;/b&gt;\n\tcan\uFFFDt open &quot;disk&quot;\n</pre>'),
      shown.slice(-1500),
    );
    assert.ok(!shown.includes('\u202E'));
    const none = await page(h, `/collections/${await declined(h, undefined)}`);
    assert.doesNotMatch(none, /Standard error/);
  } finally {
    await h.close();
  }
});
