// `return` on the console's actions (docs/contract.md section 22, "Back where you were"): an action
// posted from a filtered or paged list goes back there; any other `return` is ignored and the
// action answers as it always did. One harness per action, each posting several times.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createWebhook } from '../../src/actions/webhooks.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { enrollPending } from '../support/pending_device.ts';
import { ACCOUNTS } from '../support/scenario.ts';
import { LIST_ACTIONS } from './return_actions.ts';

const BAD = [
  'https://evil.example/devices',
  '//evil.example',
  '/\\evil.example',
  '/devices/../accounts',
  '/accounts',
  '/devices\r\nSet-Cookie: x=1',
  `/devices?q=${'a'.repeat(3000)}`,
  '',
];

interface Action {
  name: string;
  list: '/devices' | '/runs' | '/webhooks';
  who: keyof typeof ACCOUNTS;
  /** Makes what one post acts on: the path and fields of that post, and where it goes without `return`. */
  make: (h: Harness, n: number) => Promise<{ path: string; fields?: Array<[string, string]>; plain: string }>;
}

const device = (h: Harness, n: number) => enrollDevice(h, ACCOUNTS.user.subject, `device ${n}`);

async function revoked(h: Harness, n: number) {
  const d = await device(h, n);
  const { cookie, csrf } = h.signIn(ACCOUNTS.admin);
  await h.request(`/devices/${d.device}/revoke`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: `csrf=${csrf}`,
  });
  return d;
}

const ACTIONS: Action[] = [
  {
    name: 'device revoke',
    list: '/devices',
    who: 'admin',
    make: async (h, n) => ({ path: `/devices/${(await device(h, n)).device}/revoke`, plain: '/devices' }),
  },
  {
    name: 'device delete',
    list: '/devices',
    who: 'admin',
    make: async (h, n) => ({ path: `/devices/${(await revoked(h, n)).device}/delete`, plain: '/devices' }),
  },
  {
    name: 'device approve (without return, to the device)',
    list: '/devices',
    who: 'admin',
    make: async (h, n) => {
      const id = await enrollPending(h, ACCOUNTS.user.subject, `waiting ${n}`);
      return { path: `/devices/${id}/approve`, plain: `/devices/${id}` };
    },
  },
  {
    name: 'devices bulk',
    list: '/devices',
    who: 'admin',
    make: async (h, n) => ({
      path: '/devices/bulk',
      fields: [
        ['action', 'revoke'],
        ['device', (await device(h, n)).device],
      ],
      plain: '/devices',
    }),
  },
  {
    name: 'run delete',
    list: '/runs',
    who: 'user',
    make: async (h, n) => {
      const d = await device(h, n);
      assert.equal((await upload(h, d.credential, 'r', 'x')).status, 201);
      return { path: `/runs/${d.device}/r/delete`, plain: '/runs' };
    },
  },
  {
    name: 'runs bulk',
    list: '/runs',
    who: 'user',
    make: async (h, n) => {
      const d = await device(h, n);
      assert.equal((await upload(h, d.credential, 'r', 'x')).status, 201);
      return { path: '/runs/bulk', fields: [['run', `${d.device}/r`]], plain: '/runs' };
    },
  },
  {
    name: 'webhook delete',
    list: '/webhooks',
    who: 'admin',
    make: async (h, n) => {
      const deps = {
        store: h.store,
        logger: memoryLogger(),
        clock: h.clock,
        sealKey: Buffer.alloc(32, 1),
        allowPrivate: false,
      };
      const made = await createWebhook(
        deps,
        { subject: 'local:admin', admin: true, client: null },
        {
          url: `https://hooks.example.com/${n}`,
          events: ['*'],
          description: '',
        },
      );
      assert.ok(made.ok);
      return { path: `/webhooks/${made.webhook.id}/delete`, plain: '/webhooks' };
    },
  },
];

for (const action of ACTIONS) {
  test(`return: ${action.name} goes back to its list's path and query; any other return is ignored`, async () => {
    const h = await harness();
    try {
      const { cookie, csrf } = h.signIn(ACCOUNTS[action.who]);
      const good = `${action.list}?label=site%3Ds1&before=123`;
      const cases: Array<[string | undefined, 'good' | 'plain']> = [
        [good, 'good'],
        [action.list, 'good'],
        [undefined, 'plain'],
        ...BAD.map((bad): [string, 'plain'] => [bad, 'plain']),
        // Another list's path is not this action's.
        [action.list === '/runs' ? '/devices?x=1' : '/runs?x=1', 'plain'],
      ];
      let n = 0;
      for (const [value, expected] of cases) {
        const made = await action.make(h, n++);
        const body = new URLSearchParams([['csrf', csrf], ...(made.fields ?? [])]);
        if (value !== undefined) body.append('return', value);
        const res = await h.request(made.path, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        });
        assert.equal(res.status, 303, `${made.path} with return ${JSON.stringify(value)}: ${await res.text()}`);
        assert.equal(res.headers.get('location'), expected === 'good' ? value : made.plain, JSON.stringify(value));
      }
    } finally {
      await h.close();
    }
  });
}

// The lists of their own: enrollment tokens, access tokens, a collection's targets, sessions.
for (const action of LIST_ACTIONS) {
  test(`return: ${action.name} goes back to its own list's path and query; any other return is ignored`, async () => {
    const h = await harness();
    try {
      const { cookie, csrf } = h.signIn(ACCOUNTS[action.who]);
      let n = 0;
      const cases = (list: string): Array<[string | undefined, 'good' | 'plain']> => [
        [`${list}?state=pending&from=51&before=123`, 'good'],
        [list, 'good'],
        [undefined, 'plain'],
        ...BAD.map((bad): [string, 'plain'] => [bad, 'plain']),
        // Another list's path, or the collections list for a collection's page, is not this action's.
        ['/devices?x=1', 'plain'],
        [list === '/sessions' ? '/tokens' : '/sessions', 'plain'],
        [`${list}/x`, 'plain'],
      ];
      for (const [value, expected] of cases((await action.make(h, n++)).list)) {
        const made = await action.make(h, n++);
        const body = new URLSearchParams([['csrf', csrf]]);
        // The good cases name this thing's own list (a collection's page is its own).
        const sent = value?.replace(/^\/collections\/[^/?]+/, made.list);
        if (sent !== undefined) body.append('return', sent);
        const res = await h.request(made.path, {
          method: 'POST',
          headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
          body: body.toString(),
        });
        assert.equal(res.status, 303, `${made.path} with return ${JSON.stringify(sent)}: ${await res.text()}`);
        assert.equal(res.headers.get('location'), expected === 'good' ? sent : made.plain, JSON.stringify(sent));
      }
    } finally {
      await h.close();
    }
  });
}

test('return: the pages that post to these actions send their own path and query', async () => {
  const h = await harness();
  try {
    const made = await Promise.all(LIST_ACTIONS.map((action, n) => action.make(h, n)));
    for (const [i, action] of LIST_ACTIONS.entries()) {
      const { cookie } = h.signIn(ACCOUNTS[action.who]);
      const list = made[i]?.list ?? '';
      // A query the page keeps (a filter, or none but the position), escaped as an attribute.
      const here = list.startsWith('/collections/') ? `${list}?state=pending` : `${list}?from=1`;
      const page = await (await h.request(here, { headers: { cookie } })).text();
      const forms = page.split('<form').filter((f) => f.includes(`action="${made[i]?.path}"`));
      assert.equal(forms.length, 1, `${action.name}: the button on ${here}`);
      assert.match(
        forms[0] ?? '',
        new RegExp(`<input type="hidden" name="return" value="${here.replace('?', '\\?')}" />`),
        action.name,
      );
    }
  } finally {
    await h.close();
  }
});
