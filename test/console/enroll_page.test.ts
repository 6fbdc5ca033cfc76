// Enrolling (docs/contract.md section 22): the mint form offers lifetimes as durations (1 hour to
// 30 days), still posting seconds; the link page shows a command for each client that hands the
// link over on standard input, and run by `sh` (dash and busybox alike) each gives its client the
// link exactly; the navigation offers "Enroll a device" to administrators only.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import { form, harness } from '../support/harness.ts';

const entities = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

test('the mint form offers durations, the link page a command per client that passes the link on standard input', async () => {
  const h = await harness();
  try {
    const admin = h.signIn({ subject: 'local:admin', admin: true });
    const list = await (await h.request('/enroll-tokens', { headers: { cookie: admin.cookie } })).text();
    const select = /<select id="expires_in" name="expires_in">([\s\S]*?)<\/select>/.exec(list)?.[1] ?? '';
    const options = [...select.matchAll(/<option value="(\d+)"\s*(selected)?>([^<]*)<\/option>/g)];
    assert.deepEqual(
      options.map((o) => o[3]),
      ['1 hour', '4 hours', '1 day', '3 days', '7 days', '14 days', '30 days'],
    );
    assert.equal(options.filter((o) => o[2]).length, 1, 'the default is chosen');
    assert.doesNotMatch(list, /seconds/);
    assert.match(list, /<a href="\/enroll-tokens">Enroll a device<\/a>/);

    const minted = await h.request(
      '/enroll-tokens',
      form({ csrf: admin.csrf, owner: 'oidc:user-1', expires_in: '86400', approval: 'required' }, admin.cookie),
    );
    assert.equal(minted.status, 200);
    const page = await minted.text();
    const link = entities(/<textarea id="link"[^>]*>([^<]*)<\/textarea>/.exec(page)?.[1] ?? '');
    assert.match(link, /^paddock:\/\/enroll\?/);
    const commands = [...page.matchAll(/<pre><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => entities(m[1] ?? ''));
    assert.equal(commands.length, 2);
    assert.match(page, /waits for an administrator's approval/);
    for (const [command, client] of [
      [commands[0], 'paddock device'],
      [commands[1], 'paddock-device'],
    ] as const) {
      assert.ok(command?.startsWith(`${client} enroll - <<'LINK'\n`), command);
      // Each client stood in for by a function that prints its arguments and its standard input.
      const fake = `paddock() { echo "args: $*"; cat; }; paddock_device() { echo "args: $*"; cat; }`;
      for (const shell of ['dash', 'sh']) {
        const out = execFileSync(
          shell,
          ['-c', `${fake}\n${(command ?? '').replace('paddock-device', 'paddock_device')}`],
          {
            encoding: 'utf8',
          },
        );
        assert.equal(out, `args: ${client === 'paddock device' ? 'device ' : ''}enroll -\n${link}\n`, shell);
      }
    }

    const user = h.signIn({ subject: 'oidc:user-1', admin: false });
    const dashboard = await (await h.request('/', { headers: { cookie: user.cookie } })).text();
    assert.doesNotMatch(dashboard, /Enroll a device/);
    assert.match(dashboard, /^[\s\S]*?<body>\s*<a href="#content">Skip to content<\/a>/);
    assert.match(dashboard, /<main id="content"/);
  } finally {
    await h.close();
  }
});
