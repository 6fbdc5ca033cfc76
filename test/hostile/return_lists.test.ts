// `return` under attack on the actions of the lists of their own (docs/contract.md section 22):
// enrollment token revoke, access token revoke, collection cancel and session end. An off-site
// URL, `//` or `/\` (which browsers read as another host), another list's path, a header split,
// an overlong value: each is ignored, the action answering as it always did. Never a 500 or a
// stack, never a Location off this list.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';
import { LIST_ACTIONS } from '../console/return_actions.ts';

/** Evil values for a list `list`: each must be ignored. */
function evil(list: string): string[] {
  return [
    `https://evil.example${list}`,
    'http:evil.example',
    '//evil.example',
    `//evil.example${list}`,
    '/\\evil.example',
    '\\/evil.example',
    `/%2F%2Fevil.example${list}`,
    `${list}/..//evil.example`,
    `${list}@evil.example`,
    `${list}\r\nLocation: https://evil.example`,
    `${list}?\r\nSet-Cookie: x=1`,
    `${list}?q="><script>alert(1)</script>`,
    `${list}#fragment`,
    'javascript:alert(1)',
    ` ${list}`,
    // Another list's path, and a page below this one.
    '/devices',
    '/accounts?x=1',
    list === '/collections' ? '/runs' : '/collections',
    `${list}/x`,
    // Longer than any list's own link (2,048), and longer than a form may be.
    `${list}?q=${'a'.repeat(3000)}`,
    `${list}?q=${'a'.repeat(100_000)}`,
  ];
}

const noStack = (body: string, what: string) => assert.doesNotMatch(body, /at .*\.ts:\d+|Error:|node:internal/, what);

for (const action of LIST_ACTIONS)
  test(`evil return values on ${action.name}: ignored, the action as it always was; never off-site`, async () => {
    const h = await harness();
    try {
      const { cookie, csrf } = h.signIn(ACCOUNTS[action.who]);
      let n = 0;
      for (const value of evil((await action.make(h, n++)).list)) {
        const made = await action.make(h, n++);
        // For a collection, the evil values are built on another collection's page: not this one's either.
        const what = `${made.path} ${JSON.stringify(value.slice(0, 60))}`;
        const res = await h.request(made.path, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams([
            ['csrf', csrf],
            ['return', value],
          ]).toString(),
        });
        const body = await res.text();
        noStack(body, what);
        // A value past the form's limit makes the whole form too large: refused (413), never acted on.
        assert.ok(res.status === 303 || res.status === 413, `${what}: ${res.status}`);
        if (res.status === 303) assert.equal(res.headers.get('location'), made.plain, what);
        else assert.equal(res.headers.get('location'), null, what);
      }
    } finally {
      await h.close();
    }
  });

test('a return given twice is a malformed form (403) on these actions too: nothing acted on', async () => {
  const h = await harness();
  try {
    for (const [n, action] of LIST_ACTIONS.entries()) {
      const { cookie, csrf } = h.signIn(ACCOUNTS[action.who]);
      const made = await action.make(h, n);
      const res = await h.request(made.path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([
          ['csrf', csrf],
          ['return', made.list],
          ['return', '//evil.example'],
        ]).toString(),
      });
      assert.equal(res.status, 403, action.name);
      assert.equal(await res.text(), 'stale form: reload the page and retry\n', action.name);
      // Still there to act on: the plain post acts, as before.
      const again = await h.request(made.path, {
        method: 'POST',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([['csrf', csrf]]).toString(),
      });
      assert.equal(again.status, 303, `${action.name}: not acted on by the refused post`);
      assert.equal(again.headers.get('location'), made.plain, action.name);
    }
  } finally {
    await h.close();
  }
});
