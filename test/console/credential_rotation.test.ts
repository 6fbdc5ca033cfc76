// Credential rotation in the console (docs/contract.md section 16): the device page shows when the
// credential was issued and last rotated; an administrator's button asks the device to rotate
// (POST /devices/{id}/rotate, with CSRF), and its next control answer carries Paddock-Rotate.
import assert from 'node:assert/strict';
import { enrollDevice, upload, type Harness } from '../support/harness.ts';
import { runScenarios } from '../support/scenario.ts';

async function device(h: Harness) {
  const d = await enrollDevice(h, 'oidc:user-1');
  return { id: d.device, credential: d.credential };
}

async function rotatedDevice(h: Harness) {
  const d = await device(h);
  h.clock.advance(3 * 86_400_000);
  const res = await h.control('/v1/credential', {
    method: 'POST',
    headers: { authorization: `Bearer ${d.credential}` },
  });
  assert.equal(res.status, 201);
  const { credential } = (await res.json()) as { credential: string };
  return { id: d.id, credential };
}

/** A device whose replaced credential was presented after its overlap: pending, credential reused. */
async function reusedDevice(h: Harness) {
  const d = await device(h);
  const stolen = await h.control('/v1/credential', {
    method: 'POST',
    headers: { authorization: `Bearer ${d.credential}` },
  });
  assert.equal(stolen.status, 201);
  const { credential } = (await stolen.json()) as { credential: string };
  assert.equal((await upload(h, credential, 'thief', 'x')).status, 201);
  assert.equal((await upload(h, d.credential, 'real', 'y')).status, 401);
  return { id: d.id, credential };
}

runScenarios('credential rotation in the console', [
  {
    name: 'reuse is theft: the device page says why the device waits, and what approving and rejecting do',
    path: (_h, f) => `/devices/${f.id}`,
    as: 'admin',
    setup: reusedDevice,
    status: 200,
    contains: [
      /<dt>Status<\/dt>\s*<dd>pending: /,
      /<dt>Pending because<\/dt>\s*<dd>\s*<strong>credential reused<\/strong>/,
      'Approving keeps the credential the device holds now',
      'Approve this device',
      'Reject this device (it is revoked)',
    ],
  },
  {
    name: 'reuse is theft: the device list shows the reason beside the pending status',
    path: () => '/devices?status=pending',
    as: 'admin',
    setup: reusedDevice,
    status: 200,
    contains: [/<td>pending \(credential reused\)<\/td>/],
  },
  {
    name: 'the device page: issued at enrollment, never rotated; the button for an administrator',
    path: (_h, f) => `/devices/${f.id}`,
    as: 'admin',
    setup: device,
    status: 200,
    contains: [
      /<h2>Credential<\/h2>/,
      /<dt>Issued<\/dt>\s*<dd>just now \([^)]+\) at enrollment<\/dd>/,
      /<dt>Last rotated<\/dt>\s*<dd>never: it holds the credential it enrolled with<\/dd>/,
      /<form method="post" action="\/devices\/[^"/]+\/rotate">\s*<input type="hidden" name="csrf" value="[^"]+" \/>/,
      'Ask this device to rotate its credential',
    ],
  },
  {
    name: 'the device page after a rotation: when, and that the old credential still works for a while',
    path: (_h, f) => `/devices/${f.id}`,
    as: 'user',
    setup: rotatedDevice,
    status: 200,
    contains: [
      /<dt>Issued<\/dt>\s*<dd>just now \([^)]+\) by its last rotation<\/dd>/,
      /<dt>Last rotated<\/dt>\s*<dd>just now \(/,
      /<dt>Old credential<\/dt>\s*<dd>still accepted until the new one is first used, or in 10 minutes/,
    ],
    notContains: ['Ask this device to rotate', 'Rotation asked'],
  },
  {
    name: 'an administrator asks: 303 to the device, audited, and its next control answer says so',
    method: 'POST',
    path: (_h, f) => `/devices/${f.id}/rotate`,
    as: 'admin',
    setup: device,
    form: { csrf: '$csrf' },
    status: 303,
    location: /^\/devices\/[^/]+$/,
    events: ['device.rotation_asked'],
    after: async (h, res, _b, f) => {
      const answer = await upload(h, f.credential ?? '', 'r1', 'x');
      assert.equal(answer.status, 201);
      assert.equal(answer.headers.get('paddock-rotate'), 'credential');
      const notice = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
      const cookie = `${h.signIn({ subject: 'local:admin', admin: true }).cookie}; ${notice}`;
      const page = await (await h.request(`/devices/${f.id}`, { headers: { cookie } })).text();
      assert.match(page, /is asked to rotate its credential: its next answer from Paddock says so\./);
      assert.match(page, /<dt>Rotation asked<\/dt>/);
    },
  },
  {
    name: 'without the form token: refused, nothing asked',
    method: 'POST',
    path: (_h, f) => `/devices/${f.id}/rotate`,
    as: 'admin',
    setup: device,
    form: {},
    status: 403,
    events: [],
    after: async (h, _r, _b, f) => assert.equal((await h.store.deviceCredential(f.id ?? ''))?.rotationAskedAt, null),
  },
  {
    name: 'an owner who is not an administrator may not ask',
    method: 'POST',
    path: (_h, f) => `/devices/${f.id}/rotate`,
    as: 'user',
    setup: device,
    form: { csrf: '$csrf' },
    status: 403,
    events: ['access.admin_refused'],
    after: async (h, _r, _b, f) => assert.equal((await h.store.deviceCredential(f.id ?? ''))?.rotationAskedAt, null),
  },
  {
    name: 'a revoked device: 409, nothing asked',
    method: 'POST',
    path: (_h, f) => `/devices/${f.id}/rotate`,
    as: 'admin',
    setup: async (h) => {
      const d = await device(h);
      await h.store.revokeDevice({ subject: 'local:admin', admin: true }, d.id, h.clock.now());
      return d;
    },
    form: { csrf: '$csrf' },
    status: 409,
    contains: ['this device is revoked: it has no credential to rotate'],
    events: [],
  },
  {
    name: 'an unknown device: 404',
    method: 'POST',
    path: '/devices/d_nothing/rotate',
    as: 'admin',
    form: { csrf: '$csrf' },
    status: 404,
    events: [],
  },
]);
