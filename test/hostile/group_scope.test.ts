// The widened scope (docs/contract.md sections 4 and 19) probed: a member of group:ops who knows
// the ids of group:dev's device and run gets, on every device and run route of the console and of
// the API (from the routes tables), exactly the answer a missing device gets: same status, same
// body but for the id itself. Filters naming dev's owner or device find nothing, as a missing one.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { consoleRoutes } from '../../src/console/routes.ts';
import { apiRoutes } from '../../src/api/routes.ts';
import { consoleAccessToken, enrollDevice, form, harness, upload } from '../support/harness.ts';

const member = { subject: 'oidc:mallory', display: 'Mallory', admin: false };
const MISSING = 'd_nosuchdevice0000';

/** Every route that takes a device (and a run) in its path. */
const probed = [...consoleRoutes, ...apiRoutes].filter((r) =>
  /^(\/api\/v1)?\/(devices\/:id|runs\/:device\/:id)/.test(r.path),
);

test("a non-member probing group:dev's device and run ids gets what a missing device gets, on every route", async () => {
  const h = await harness();
  try {
    const dev = await enrollDevice(h, 'group:dev', 'Dev Board');
    const ops = await enrollDevice(h, 'group:ops', 'Ops Router');
    await upload(h, dev.credential, 'run-1', 'secret of dev');
    await upload(h, ops.credential, 'run-1', 'ops');
    await h.store.setAccountGroups(member.subject, ['ops', 'dev-readers', 'DEV', 'group:dev']);
    const { value, cookie, csrf } = await consoleAccessToken(h, member);
    assert.ok(probed.length >= 15, `${probed.length} routes probed`);
    for (const route of probed) {
      const answer = async (device: string) => {
        const path = route.path
          .replace(':device', device)
          .replace(':id', route.path.includes(':device') ? 'run-1' : device);
        const api = path.startsWith('/api/');
        const headers: Record<string, string> = api ? { authorization: `Bearer ${value}` } : { cookie };
        const init: RequestInit =
          route.method === 'GET'
            ? { headers }
            : api
              ? {
                  method: route.method,
                  headers: { ...headers, 'content-type': 'application/json' },
                  body: '{"name":"x","owner":"oidc:mallory","set":{"a":"b"}}',
                }
              : form({ csrf, name: 'x', owner: 'oidc:mallory', set: 'a=b' }, cookie);
        const res = await h.request(path, init);
        return { status: res.status, body: (await res.text()).replaceAll(device, '{device}') };
      };
      const [probe, missing] = [await answer(dev.device), await answer(MISSING)];
      assert.deepEqual(probe, missing, `${route.method} ${route.path}`);
      assert.ok(probe.status >= 400, `${route.method} ${route.path}: ${probe.status}`);
    }
    // Lists: a filter naming dev's owner, or its device, finds what one naming nothing finds.
    const page = async (path: string) =>
      (await (await h.request(path, { headers: { cookie } })).text())
        .replaceAll(dev.device, '{device}')
        .replaceAll(MISSING, '{device}');
    assert.equal(await page(`/runs?device=${dev.device}`), await page(`/runs?device=${MISSING}`));
    assert.ok(!(await page('/devices?owner=group%3Adev')).includes('{device}'));
    assert.ok(
      !(await page('/devices?q=Dev%20Board')).includes('{device}'),
      'the search echoes the words, never the device',
    );
    assert.ok(!(await page('/runs')).includes('{device}'));
    // Nothing of dev's changed.
    const admin = { subject: 'local:admin', admin: true };
    assert.equal((await h.store.deviceVisibleTo(admin, dev.device))?.name, 'Dev Board');
    assert.ok(await h.store.runVisibleTo(admin, dev.device, 'run-1'));
  } finally {
    await h.close();
  }
});
