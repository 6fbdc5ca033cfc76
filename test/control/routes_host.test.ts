// Regression: a control route answers through the host router as it does on the control app
// itself. The router once kept its own list of control paths, so a new route answered 404 there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { controlRoutes, isControlPath } from '../../src/control/routes.ts';
import { hostRouter } from '../../src/host/host_router.ts';
import { harness } from '../support/harness.ts';

function samplePath(path: string): string {
  return path.replace(/:[a-z]+/g, 'sample-1');
}

for (const setup of [
  {
    name: 'one host name (the loopback default)',
    adminHost: '127.0.0.1',
    controlHost: '127.0.0.1',
    host: '127.0.0.1:8080',
  },
  { name: 'two host names', adminHost: 'admin.example', controlHost: 'control.example', host: 'control.example' },
]) {
  for (const route of controlRoutes) {
    test(`control routes: ${route.method} ${route.path} on ${setup.name} reaches the control API`, async () => {
      const h = await harness();
      try {
        const router = hostRouter({ ...setup, tls: false, admin: h.ui, control: h.controlApp });
        const url = `http://${setup.host}${samplePath(route.path)}`;
        const init = {
          method: route.method,
          headers: { host: setup.host },
          body: route.method === 'GET' ? null : '{}',
        };
        const env = { incoming: { socket: { remoteAddress: '198.51.100.9' } } };
        const viaRouter = await router(new Request(url, init), env);
        const direct = await h.controlApp.request(url, init, env);
        assert.notEqual(viaRouter.status, 404);
        assert.equal(viaRouter.status, direct.status);
        assert.equal(await viaRouter.text(), await direct.text());
      } finally {
        await h.close();
      }
    });
  }
}

test('control routes: the host router treats exactly the control rows as control paths', () => {
  for (const route of controlRoutes) assert.equal(isControlPath(samplePath(route.path)), true, route.path);
  for (const path of ['/', '/healthz', '/v1/discover', '/v1/runs', '/v1/runs/a/b', '/v1/enroll/x', '/runs/d/r']) {
    assert.equal(isControlPath(path), false, path);
  }
});
