// The JSON API as a table of scenarios (docs/contract.md section 11), each on a fresh world and run on
// both stores: one row is one request by one token, and what must come back (status, problem
// field, body), what must have changed in the store, and what must be in the audit trail. Every
// response is also checked against the served OpenAPI document.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { secretHash } from '../../src/crypto/random.ts';
import { createWebhook, testWebhook } from '../../src/actions/webhooks.ts';
import { CLAIM_MS } from '../../src/domain/webhooks.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import type { Store } from '../../src/store/store.ts';
import { enrollDevice, harness, type Harness, upload } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';
import { type ApiRow, apiTable } from '../support/api_table.ts';

type Token = 'admin' | 'user' | 'other' | 'revoked' | 'expired' | 'read' | 'demoted' | 'disabled' | 'stale';

const NINETY_DAYS = 90 * 86_400_000;

/** What every scenario starts from: three devices, three runs, tokens and one enrollment token. */
interface World {
  h: Harness;
  tokens: Record<Token, string>;
  /** The user's device (runs r1, flagged, and r2), the other account's (run t1), the user's revoked one (run g1). */
  ids: { mine: string; theirs: string; gone: string; enroll: string; readId: string; hook: string; delivery: string };
}

type Row = ApiRow<World>;

type Listed = { items: Array<Record<string, unknown>>; next?: string };
const ids = (body: unknown, key = 'id') => (body as Listed).items.map((i) => i[key]).sort();
const RUN_BYTES = 'a full run\nline two\n';

const secretIn = (body: unknown) => JSON.stringify(body).match(/whsec_[A-Za-z0-9+/=]+/)?.[0];

const rows: Row[] = [
  // docs/contract.md section 14: rights follow the account; a read token changes nothing.
  { name: 'a read token reads', path: '/api/v1/devices', as: 'read', status: 200 },
  {
    name: 'a read token may not rename',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    json: { name: 'renamed' },
    as: 'read',
    status: 403,
    events: ['access.read_only_refused'],
    audited: [['access.read_only_refused', ACCOUNTS.user.subject]],
    check: async (w) => assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.name, 'mine'),
  },
  {
    name: 'a read token may not mint a token',
    method: 'POST',
    path: '/api/v1/tokens',
    json: { name: 'escalate', scope: 'write' },
    as: 'read',
    status: 403,
    events: ['access.read_only_refused'],
  },
  {
    name: 'a token made while its account was admin acts with the flag of its latest sign-in',
    path: '/api/v1/audit',
    as: 'demoted',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
  },
  {
    name: 'a token of a disabled account',
    path: '/api/v1/devices',
    as: 'disabled',
    status: 401,
    events: ['access_token.refused'],
    audited: [['access_token.refused', 'oidc:disabled']],
    check: (_w, body) => assert.match((body as { detail: string }).detail, /disabled/),
  },
  {
    name: 'a token of an account whose latest sign-in is older than PADDOCK_ACCOUNT_SIGNIN_MAX_AGE',
    path: '/api/v1/devices',
    as: 'stale',
    status: 401,
    events: ['access_token.refused'],
    check: (_w, body) => assert.match((body as { detail: string }).detail, /sign in again/),
  },
  // The account's own tokens.
  {
    name: 'a token lists its account tokens, with their scope',
    path: '/api/v1/tokens',
    as: 'user',
    status: 200,
    check: (_w, body) =>
      assert.deepEqual(
        (body as Listed).items.map((t) => [t.name, t.scope, t.state]),
        [
          ['demoted', 'write', 'active'],
          ['read', 'read', 'active'],
          ['revoked', 'write', 'revoked'],
          ['expired', 'write', 'expired'],
          ['user', 'write', 'active'],
        ],
      ),
  },
  {
    name: 'a write token mints a read token',
    method: 'POST',
    path: '/api/v1/tokens',
    json: { name: 'ci reader', scope: 'read', expires_in: 3600 },
    as: 'user',
    status: 201,
    events: ['access_token.used', 'access_token.created'],
    check: async (w, body) => {
      const created = body as { token: { scope: string; id: string }; value: string };
      assert.equal(created.token.scope, 'read');
      const found = await w.h.store.accessTokenByHash(secretHash(created.value), w.h.clock.now());
      assert.equal(found?.scope, 'read');
      assert.equal(found?.subject, ACCOUNTS.user.subject);
    },
  },
  {
    name: 'mint: no scope is write',
    method: 'POST',
    path: '/api/v1/tokens',
    json: { name: 'ci' },
    as: 'user',
    status: 201,
    check: (_w, body) => assert.equal((body as { token: { scope: string } }).token.scope, 'write'),
  },
  {
    name: 'mint: an unknown scope',
    method: 'POST',
    path: '/api/v1/tokens',
    json: { name: 'ci', scope: 'admin' },
    as: 'user',
    status: 400,
    field: 'scope',
  },
  {
    name: 'revoke: an unknown token',
    method: 'POST',
    path: '/api/v1/tokens/a_nothing/revoke',
    as: 'user',
    status: 404,
  },
  {
    name: 'revoke: its own token',
    method: 'POST',
    path: '/api/v1/tokens/{readId}/revoke',
    as: 'user',
    status: 204,
    events: ['access_token.used', 'access_token.revoked'],
  },
  // Authentication: only a live personal access token; a session cookie is not enough.
  { name: 'no token', path: '/api/v1/devices', as: undefined, status: 401, events: [] },
  { name: 'a revoked token', path: '/api/v1/devices', as: 'revoked', status: 401, events: [] },
  { name: 'an expired token', path: '/api/v1/devices', as: 'expired', status: 401 },
  {
    name: 'a malformed bearer',
    path: '/api/v1/devices',
    headers: { authorization: 'Bearer pdk_short' },
    status: 401,
  },
  {
    name: 'a session cookie without a token',
    path: '/api/v1/devices',
    headers: { cookie: 'service_admin=x' },
    status: 401,
  },
  // Devices.
  {
    name: 'a user lists its own devices only',
    path: '/api/v1/devices',
    as: 'user',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.gone, w.ids.mine].sort()),
  },
  {
    name: 'an admin lists every device',
    path: '/api/v1/devices',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.gone, w.ids.mine, w.ids.theirs].sort()),
  },
  {
    name: 'the status filter',
    path: '/api/v1/devices?status=revoked',
    as: 'user',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.gone]),
  },
  { name: 'a search too short', path: '/api/v1/devices?q=ab', as: 'user', status: 400, field: 'q' },
  { name: 'a repeated filter', path: '/api/v1/devices?sort=name&sort=name', as: 'user', status: 400, field: 'sort' },
  { name: 'an unknown parameter', path: '/api/v1/devices?limit=5', as: 'user', status: 400, field: 'limit' },
  { name: "another account's device", path: '/api/v1/devices/{theirs}', as: 'user', status: 404 },
  {
    name: 'its own device',
    path: '/api/v1/devices/{mine}',
    as: 'user',
    status: 200,
    check: (w, body) =>
      assert.deepEqual([(body as { id: string }).id, (body as { name: string }).name], [w.ids.mine, 'mine']),
  },
  // Rename: JSON in, checked strictly.
  {
    name: 'the owner renames',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    as: 'user',
    json: { name: 'kitchen' },
    status: 200,
    events: ['access_token.used', 'device.renamed'],
    audited: [['device.renamed', ACCOUNTS.user.subject]],
    check: async (w, body) => {
      assert.equal((body as { name: string }).name, 'kitchen');
      assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.name, 'kitchen');
    },
  },
  {
    name: "a rename of another account's device",
    method: 'POST',
    path: '/api/v1/devices/{theirs}/rename',
    as: 'user',
    json: { name: 'mine now' },
    status: 404,
    events: ['access_token.used'],
    check: async (w) => assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.theirs))?.name, 'theirs'),
  },
  ...[
    ['a name of the wrong type', { name: 5 }, 'name'],
    ['an unknown field', { name: 'x', colour: 'red' }, 'colour'],
    ['a missing field', {}, 'name'],
    ['an empty name', { name: ' ' }, 'name'],
  ].map(([what, json, field]): Row => ({
    name: `rename: ${String(what)}`,
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    as: 'user',
    json,
    status: 400,
    field: field as string,
    events: ['access_token.used'],
    check: async (w) => assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.name, 'mine'),
  })),
  {
    name: 'rename: a body that is not JSON',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    as: 'user',
    body: '{"name": "kitchen"',
    headers: { 'content-type': 'application/json' },
    status: 400,
  },
  {
    name: 'rename: a JSON array',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    as: 'user',
    json: [{ name: 'kitchen' }],
    status: 400,
  },
  {
    name: 'rename: a form instead of JSON',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    as: 'user',
    body: 'name=kitchen',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    status: 415,
  },
  {
    name: 'rename: a body over 8 KiB',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rename',
    as: 'user',
    json: { name: 'k'.repeat(9000) },
    status: 413,
  },
  // Credential rotation (docs/contract.md section 16): an administrator asks; the device's next answer says so.
  {
    name: 'an admin asks a device to rotate its credential',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rotate',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'device.rotation_asked'],
    audited: [['device.rotation_asked', ACCOUNTS.admin.subject]],
    check: async (w) => assert.equal((await w.h.store.deviceCredential(w.ids.mine))?.rotationAskedAt, w.h.clock.now()),
  },
  {
    name: 'a user may not ask a rotation',
    method: 'POST',
    path: '/api/v1/devices/{mine}/rotate',
    as: 'user',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
    check: async (w) => assert.equal((await w.h.store.deviceCredential(w.ids.mine))?.rotationAskedAt, null),
  },
  {
    name: 'a rotation of a revoked device',
    method: 'POST',
    path: '/api/v1/devices/{gone}/rotate',
    as: 'admin',
    status: 409,
    events: ['access_token.used'],
    check: (_w, body) => assert.match((body as { detail: string }).detail, /revoked/),
  },
  {
    name: 'a rotation of an unknown device',
    method: 'POST',
    path: '/api/v1/devices/d_nothing/rotate',
    as: 'admin',
    status: 404,
    events: ['access_token.used'],
  },
  // Revoke and delete: administrators only; delete after revoke.
  {
    name: 'a user may not revoke',
    method: 'POST',
    path: '/api/v1/devices/{mine}/revoke',
    as: 'user',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
    check: async (w) => assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.revokedAt, null),
  },
  {
    name: 'an admin revokes',
    method: 'POST',
    path: '/api/v1/devices/{mine}/revoke',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'device.revoked'],
    audited: [['device.revoked', ACCOUNTS.admin.subject]],
    check: async (w) => assert.ok((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.revokedAt),
  },
  {
    name: 'a delete before revoke',
    method: 'POST',
    path: '/api/v1/devices/{mine}/delete',
    as: 'admin',
    status: 409,
    events: ['access_token.used'],
  },
  {
    name: 'an admin deletes a revoked device and its runs',
    method: 'POST',
    path: '/api/v1/devices/{gone}/delete',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'device.deleted'],
    audited: [['device.deleted', ACCOUNTS.admin.subject]],
    check: async (w) => {
      assert.equal(await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.gone), undefined);
      assert.equal(await w.h.store.runVisibleTo(ACCOUNTS.admin, w.ids.gone, 'g1'), undefined);
    },
  },
  {
    name: 'a user may not delete',
    method: 'POST',
    path: '/api/v1/devices/{gone}/delete',
    as: 'user',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
  },
  // Handing over (docs/contract.md section 19): admin tokens only; the owner named when bad.
  {
    name: 'an admin hands a device over to a group, runs and all',
    method: 'POST',
    path: '/api/v1/devices/{mine}/owner',
    as: 'admin',
    json: { owner: 'group:ops' },
    status: 200,
    events: ['access_token.used', 'device.owner_changed'],
    audited: [['device.owner_changed', ACCOUNTS.admin.subject]],
    check: async (w, body) => {
      assert.equal((body as { owner: string }).owner, 'group:ops');
      assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.owner, 'group:ops');
      assert.equal(
        (await w.h.store.runsVisibleTo(ACCOUNTS.user, { limit: 10 }, { device: w.ids.mine })).items.length,
        0,
      );
    },
  },
  {
    name: 'a user may not hand over, even its own device',
    method: 'POST',
    path: '/api/v1/devices/{mine}/owner',
    as: 'user',
    json: { owner: 'oidc:user-2' },
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
    check: async (w) =>
      assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.owner, ACCOUNTS.user.subject),
  },
  {
    name: 'hand over: an owner that is neither a subject nor a group',
    method: 'POST',
    path: '/api/v1/devices/{mine}/owner',
    as: 'admin',
    json: { owner: 'team:ops' },
    status: 400,
    field: 'owner',
    events: ['access_token.used'],
  },
  {
    name: 'hand over: an unknown device',
    method: 'POST',
    path: '/api/v1/devices/d_nosuchdevice0000/owner',
    as: 'admin',
    json: { owner: 'group:ops' },
    status: 404,
    events: ['access_token.used'],
  },
  // Labels (docs/contract.md section 12): on device objects, the filter, the change.
  {
    name: 'devices carry their labels',
    path: '/api/v1/devices/{mine}',
    as: 'user',
    status: 200,
    check: (_w, body) => assert.deepEqual((body as { labels: unknown }).labels, { line: '3', site: 'berlin' }),
  },
  {
    name: 'the label filter, key=value: every account, for an admin',
    path: '/api/v1/devices?label=site%3Dberlin',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.mine, w.ids.theirs].sort()),
  },
  {
    name: 'the label filter, scoped for a user',
    path: '/api/v1/devices?label=site%3Dberlin',
    as: 'user',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.mine]),
  },
  {
    name: 'the label filter given twice: both must hold; a key alone is any value',
    path: '/api/v1/devices?label=site&label=line',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.mine]),
  },
  {
    name: 'a bad label filter names the label',
    path: '/api/v1/devices?label=Site%3Dberlin',
    as: 'admin',
    status: 400,
    field: 'label',
    check: (_w, body) => assert.match((body as { detail: string }).detail, /label "Site=berlin": a label key/),
  },
  {
    name: 'more than five label filters',
    path: `/api/v1/devices?${Array.from({ length: 6 }, (_, i) => `label=k${i}`).join('&')}`,
    as: 'admin',
    status: 400,
    field: 'label',
  },
  // Facts (docs/contract.md section 16): on device objects with their time, and the filter.
  {
    name: 'devices carry the facts they reported, and when',
    path: '/api/v1/devices/{mine}',
    as: 'user',
    status: 200,
    check: (w, body) => {
      const d = body as { facts: unknown; facts_reported_at: string };
      assert.deepEqual(d.facts, { client_version: '1.4.0', hostname: 'gate 1 = north', os: 'linux' });
      // Reported as the world was made, moments before the request.
      assert.ok(w.h.clock.now() - Date.parse(d.facts_reported_at) < 60_000, d.facts_reported_at);
    },
  },
  {
    name: 'a device that never reported has no facts and no time',
    path: '/api/v1/devices?status=revoked',
    as: 'user',
    status: 200,
    check: (_w, body) =>
      assert.deepEqual(
        (body as Listed).items.map((d) => [d.facts, d.facts_reported_at]),
        [[{}, null]],
      ),
  },
  {
    name: 'the fact filter, key=value: every account, for an admin',
    path: '/api/v1/devices?fact=os%3Dlinux',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.mine, w.ids.theirs].sort()),
  },
  {
    name: 'the fact filter, scoped for a user',
    path: '/api/v1/devices?fact=os%3Dlinux',
    as: 'user',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.mine]),
  },
  {
    name: 'the fact filter given twice: both must hold; the value is exact, spaces and = included',
    path: '/api/v1/devices?fact=os%3Dlinux&fact=client_version%3D1.4.0&fact=hostname%3Dgate%201%20%3D%20north',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.mine]),
  },
  {
    name: 'the fact filter is exact: a prefix finds nothing',
    path: '/api/v1/devices?fact=client_version%3D1.4',
    as: 'admin',
    status: 200,
    check: (_w, body) => assert.deepEqual(ids(body), []),
  },
  {
    name: 'a bad fact filter names the fact',
    path: '/api/v1/devices?fact=OS%3Dlinux',
    as: 'admin',
    status: 400,
    field: 'fact',
    check: (_w, body) => assert.match((body as { detail: string }).detail, /fact "OS": a fact key/),
  },
  {
    name: 'a fact filter without a value',
    path: '/api/v1/devices?fact=os',
    as: 'admin',
    status: 400,
    field: 'fact',
    check: (_w, body) => assert.match((body as { detail: string }).detail, /fact "os": write the filter as key=value/),
  },
  {
    name: 'more than five fact filters',
    path: `/api/v1/devices?${Array.from({ length: 6 }, (_, i) => `fact=k${i}%3Dv`).join('&')}`,
    as: 'admin',
    status: 400,
    field: 'fact',
  },
  {
    name: 'the owner sets and removes labels; the device is answered',
    method: 'POST',
    path: '/api/v1/devices/{mine}/labels',
    as: 'user',
    json: { set: { rack: 'a-7', site: 'paris' }, remove: ['line', 'absent'] },
    status: 200,
    events: ['access_token.used', 'device.labelled'],
    audited: [['device.labelled', ACCOUNTS.user.subject]],
    check: async (w, body) => {
      assert.deepEqual((body as { labels: unknown }).labels, { rack: 'a-7', site: 'paris' });
      assert.deepEqual(
        { ...(await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.labels },
        {
          rack: 'a-7',
          site: 'paris',
        },
      );
      await w.h.flushAudit();
      const [record] = (await w.h.store.auditPage({ event: 'device.labelled' }, { limit: 5 })).items;
      assert.match(record?.detail ?? '', /line,rack,site/, 'the keys changed');
    },
  },
  {
    name: 'a change that changes nothing is answered and not audited',
    method: 'POST',
    path: '/api/v1/devices/{mine}/labels',
    as: 'user',
    json: { set: { site: 'berlin' } },
    status: 200,
    events: ['access_token.used'],
  },
  {
    name: "labels of another account's device",
    method: 'POST',
    path: '/api/v1/devices/{theirs}/labels',
    as: 'user',
    json: { set: { site: 'mine' } },
    status: 404,
    events: ['access_token.used'],
    check: async (w) =>
      assert.deepEqual(
        { ...(await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.theirs))?.labels },
        { site: 'berlin' },
      ),
  },
  {
    name: 'an admin labels any device',
    method: 'POST',
    path: '/api/v1/devices/{theirs}/labels',
    as: 'admin',
    json: { remove: ['site'] },
    status: 200,
    events: ['access_token.used', 'device.labelled'],
    check: (_w, body) => assert.deepEqual((body as { labels: unknown }).labels, {}),
  },
  ...[
    ['a bad key', { set: { Site: 'x' } }, 'set', /label "Site=x": a label key/],
    ['a bad value', { set: { site: 'a b' } }, 'set', /label "site=a b": a label value/],
    ['a value not a string', { set: { site: 3 } }, 'set', /label "site": its value must be a string/],
    ['set not an object', { set: ['site=x'] }, 'set', /set must be an object/],
    ['a bad key to remove', { remove: ['-x'] }, 'remove', /label "-x": a label key/],
    ['a key removed twice', { remove: ['site', 'site'] }, 'remove', /the key site is given twice/],
    ['a key both set and removed', { set: { site: 'x' }, remove: ['site'] }, 'remove', /both set and removed/],
    ['an unknown field', { labels: { site: 'x' } }, 'labels', /not a field/],
    [
      'more than 20 labels',
      { set: Object.fromEntries(Array.from({ length: 19 }, (_, i) => [`k${i}`, 'v'])) },
      'set',
      /label "k[0-9]+=v": a device has at most 20 labels/,
    ],
  ].map(([what, json, field, detail]): Row => ({
    name: `labels: ${String(what)}, nothing changed`,
    method: 'POST',
    path: '/api/v1/devices/{mine}/labels',
    as: 'user',
    json,
    status: 400,
    field: field as string,
    events: ['access_token.used'],
    check: async (w, body) => {
      assert.match((body as { detail: string }).detail, detail as RegExp);
      assert.deepEqual(
        { ...(await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.labels },
        {
          line: '3',
          site: 'berlin',
        },
      );
    },
  })),
  {
    name: 'labels: one key given twice in the JSON, nothing changed',
    method: 'POST',
    path: '/api/v1/devices/{mine}/labels',
    as: 'user',
    body: '{"set": {"site": "a", "site": "b"}}',
    headers: { 'content-type': 'application/json' },
    status: 400,
    events: ['access_token.used'],
    check: async (w, body) => {
      assert.match((body as { detail: string }).detail, /"site" is given twice/);
      assert.equal((await w.h.store.deviceVisibleTo(ACCOUNTS.admin, w.ids.mine))?.labels.site, 'berlin');
    },
  },
  // Enrollment tokens.
  { name: 'a user may not list enrollment tokens', path: '/api/v1/enroll-tokens', as: 'user', status: 403 },
  {
    name: 'an admin lists the outstanding tokens',
    path: '/api/v1/enroll-tokens',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body), [w.ids.enroll]),
  },
  {
    name: 'an admin mints; the link enrolls up to its uses',
    method: 'POST',
    path: '/api/v1/enroll-tokens',
    as: 'admin',
    json: {
      uses: 2,
      max_privacy: 'redacted',
      note: 'lab bench',
      name: 'bench unit',
      expires_in: 7200,
      owner: ACCOUNTS.other.subject,
      labels: { site: 'oslo', line: '4' },
    },
    status: 201,
    events: ['access_token.used', 'enroll_token.minted'],
    audited: [['enroll_token.minted', ACCOUNTS.admin.subject]],
    check: async (w, body) => {
      const minted = body as {
        token: Record<'id' | 'owner' | 'note' | 'name' | 'max_privacy' | 'created_at' | 'expires_at', string> & {
          uses: number;
        };
        link: string;
      };
      const t = minted.token;
      assert.deepEqual(
        [t.uses, t.owner, t.note, t.name, t.max_privacy],
        [2, ACCOUNTS.other.subject, 'lab bench', 'bench unit', 'redacted'],
      );
      assert.equal(Date.parse(t.expires_at) - Date.parse(t.created_at), 7_200_000, 'expires_in is kept');
      assert.match(minted.link, /[?&]max_privacy=redacted(&|$)/, 'the link carries the ceiling');
      const token = new URL(minted.link.replace('#', '?')).searchParams.get('token') ?? '';
      assert.ok(token.length >= 43, minted.link);
      assert.ok(!JSON.stringify(w.h.logs).includes(token), 'the token is in no log record');
      const enroll = (name: string) =>
        w.h.control('/v1/enroll', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ token, name }),
        });
      assert.deepEqual(
        [(await enroll('a')).status, (await enroll('b')).status, (await enroll('c')).status],
        [201, 201, 401],
      );
      assert.deepEqual((minted.token as unknown as { labels: unknown }).labels, { line: '4', site: 'oslo' });
      const labelled = await w.h.store.devicesVisibleTo(
        ACCOUNTS.admin,
        { limit: 10 },
        {
          staleBefore: 0,
          labels: [{ key: 'site', value: 'oslo' }],
        },
      );
      assert.equal(labelled.items.length, 2, 'both devices it enrolled start with its labels');
    },
  },
  ...[
    ['uses as text', { uses: '3' }, 'uses'],
    ['no uses', { uses: 0 }, 'uses'],
    ['a fraction of a second', { expires_in: 1.5 }, 'expires_in'],
    ['too short a life', { expires_in: 60 }, 'expires_in'],
    ['a bad owner', { owner: 'no such form' }, 'owner'],
    ['an unknown level', { max_privacy: 'secret' }, 'max_privacy'],
    ['an unknown field', { token: 'mine' }, 'token'],
    ['a bad label', { labels: { site: 'a/b' } }, 'labels'],
    ['labels not an object', { labels: 'site=x' }, 'labels'],
  ].map(([what, json, field]): Row => ({
    name: `mint: ${String(what)}`,
    method: 'POST',
    path: '/api/v1/enroll-tokens',
    as: 'admin',
    json,
    status: 400,
    field: field as string,
    events: ['access_token.used'],
    check: async (w) =>
      assert.equal((await w.h.store.outstandingEnrollTokens({ limit: 5 }, w.h.clock.now())).items.length, 1),
  })),
  {
    name: 'a user may not mint',
    method: 'POST',
    path: '/api/v1/enroll-tokens',
    as: 'user',
    json: {},
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
  },
  {
    name: 'an admin revokes an enrollment token',
    method: 'POST',
    path: '/api/v1/enroll-tokens/{enroll}/revoke',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'enroll_token.revoked'],
    audited: [['enroll_token.revoked', ACCOUNTS.admin.subject]],
    check: async (w) =>
      assert.equal((await w.h.store.outstandingEnrollTokens({ limit: 5 }, w.h.clock.now())).items.length, 0),
  },
  {
    name: 'an unknown enrollment token',
    method: 'POST',
    path: '/api/v1/enroll-tokens/t_unknown/revoke',
    as: 'admin',
    status: 404,
    events: ['access_token.used'],
  },
  // Runs.
  {
    name: 'a user lists its own runs only',
    path: '/api/v1/runs',
    as: 'user',
    status: 200,
    check: (_w, body) => assert.deepEqual(ids(body), ['g1', 'r1', 'r2']),
  },
  {
    name: 'the flagged filter',
    path: '/api/v1/runs?flagged=yes',
    as: 'user',
    status: 200,
    check: (_w, body) => assert.deepEqual(ids(body), ['r1']),
  },
  { name: 'a bad level', path: '/api/v1/runs?privacy=nope', as: 'user', status: 400, field: 'privacy' },
  { name: "another account's run", path: '/api/v1/runs/{theirs}/t1', as: 'user', status: 404 },
  {
    name: 'its own run',
    path: '/api/v1/runs/{mine}/r1',
    as: 'user',
    status: 200,
    check: (_w, body) => assert.deepEqual(body, { ...(body as object), id: 'r1', privacy: 'redacted', flagged: true }),
  },
  {
    name: 'the bytes of its run, as a download',
    path: '/api/v1/runs/{mine}/r2/raw',
    as: 'user',
    status: 200,
    events: ['access_token.used', 'run.downloaded'],
    audited: [['run.downloaded', ACCOUNTS.user.subject]],
    check: (_w, body, res) => {
      assert.equal(body, RUN_BYTES);
      assert.equal(res.headers.get('content-security-policy'), "default-src 'none'; sandbox");
      assert.match(res.headers.get('content-disposition') ?? '', /^attachment; /);
    },
  },
  {
    name: "the bytes of another account's run",
    path: '/api/v1/runs/{theirs}/t1/raw',
    as: 'user',
    status: 404,
    events: ['access_token.used'],
  },
  {
    name: 'a user deletes its run',
    method: 'DELETE',
    path: '/api/v1/runs/{mine}/r2',
    as: 'user',
    status: 204,
    events: ['access_token.used', 'run.deleted'],
    audited: [['run.deleted', ACCOUNTS.user.subject]],
    check: async (w) => assert.equal(await w.h.store.runVisibleTo(ACCOUNTS.admin, w.ids.mine, 'r2'), undefined),
  },
  {
    name: "a delete of another account's run",
    method: 'DELETE',
    path: '/api/v1/runs/{theirs}/t1',
    as: 'user',
    status: 404,
    events: ['access_token.used'],
    check: async (w) => assert.ok(await w.h.store.runVisibleTo(ACCOUNTS.admin, w.ids.theirs, 't1')),
  },
  {
    name: "an admin deletes any account's run",
    method: 'DELETE',
    path: '/api/v1/runs/{theirs}/t1',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'run.deleted'],
    audited: [['run.deleted', ACCOUNTS.admin.subject]],
  },
  // Audit trail and accounts: administrators only.
  {
    name: 'a user may not read the audit trail',
    path: '/api/v1/audit',
    as: 'user',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
  },
  {
    name: 'an admin reads the audit trail, filtered',
    path: '/api/v1/audit?event=device.enrolled',
    as: 'admin',
    status: 200,
    check: (w, body) => assert.deepEqual(ids(body, 'device'), [w.ids.gone, w.ids.mine, w.ids.theirs].sort()),
  },
  { name: 'an unknown event', path: '/api/v1/audit?event=nope', as: 'admin', status: 400, field: 'event' },
  {
    name: 'a day that does not exist',
    path: '/api/v1/audit?since=2026-13-01',
    as: 'admin',
    status: 400,
    field: 'since',
  },
  {
    name: 'an admin lists the accounts',
    path: '/api/v1/accounts',
    as: 'admin',
    status: 200,
    check: (_w, body) =>
      assert.deepEqual(
        (body as Listed).items.map((a) => [a.subject, a.devices]),
        [
          [ACCOUNTS.other.subject, 1],
          [ACCOUNTS.user.subject, 2],
          [ACCOUNTS.admin.subject, 0],
          ['oidc:disabled', 0],
          ['oidc:stale', 0],
        ],
      ),
  },
  { name: 'a user may not list the accounts', path: '/api/v1/accounts', as: 'user', status: 403 },
  { name: 'a bad accounts cursor', path: '/api/v1/accounts?before=x', as: 'admin', status: 400, field: 'before' },
  // Webhooks (docs/contract.md section 13): administrators only.
  {
    name: 'an admin lists the webhook endpoints, with no secret',
    path: '/api/v1/webhooks',
    as: 'admin',
    status: 200,
    events: ['access_token.used'],
    check: (w, body) => {
      assert.deepEqual(ids(body), [w.ids.hook]);
      assert.equal(secretIn(body), undefined);
      assert.equal((body as Listed).items[0]?.last_outcome, '500');
    },
  },
  {
    name: 'a user may not list the webhook endpoints',
    path: '/api/v1/webhooks',
    as: 'user',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
  },
  {
    name: 'an unknown parameter of the webhooks',
    path: '/api/v1/webhooks?limit=5',
    as: 'admin',
    status: 400,
    field: 'limit',
  },
  {
    name: 'an admin adds an endpoint: 201 with the secret, shown only here',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: {
      url: 'https://hooks.example.com/in',
      events: ['device.enrolled', 'run.stored'],
      description: 'provisioning',
    },
    status: 201,
    events: ['access_token.used', 'webhook.created'],
    audited: [['webhook.created', ACCOUNTS.admin.subject]],
    check: async (w, body) => {
      const secret = secretIn(body);
      assert.match(secret ?? '', /^whsec_[A-Za-z0-9+/]{32,}={0,2}$/);
      assert.ok(!JSON.stringify(w.h.logs).includes(secret ?? 'x'), 'no log record holds the secret');
      const made = (body as { webhook: { id: string; events: string[] } }).webhook;
      assert.deepEqual((await w.h.store.webhook(made.id))?.events, ['device.enrolled', 'run.stored']);
    },
  },
  {
    name: 'an http:// target is refused, naming url',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'http://hooks.example.com/in', events: ['*'] },
    status: 400,
    field: 'url',
    events: ['access_token.used'],
  },
  {
    name: 'a private address is refused, naming url',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'https://[fd00::1]/in', events: ['*'] },
    status: 400,
    field: 'url',
    check: (_w, body) => assert.match((body as { detail: string }).detail, /unique-local/),
  },
  {
    name: 'an unknown event is refused, naming events',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'https://hooks.example.com/in', events: ['device.exploded'] },
    status: 400,
    field: 'events',
  },
  {
    name: 'events that are not an array are refused',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'https://hooks.example.com/in', events: '*' },
    status: 400,
    field: 'events',
  },
  {
    name: 'events missing',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'https://hooks.example.com/in' },
    status: 400,
    field: 'events',
  },
  {
    name: 'an unknown body field (a secret chosen by the caller) is refused',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'https://hooks.example.com/in', events: ['*'], secret: 'whsec_mine' },
    status: 400,
    field: 'secret',
    check: async (w) => assert.equal((await w.h.store.webhooks(10)).length, 1),
  },
  {
    name: 'a description on two lines',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'admin',
    json: { url: 'https://hooks.example.com/in', events: ['*'], description: 'a\nb' },
    status: 400,
    field: 'description',
  },
  {
    name: 'a user may not add an endpoint',
    method: 'POST',
    path: '/api/v1/webhooks',
    as: 'user',
    json: { url: 'https://hooks.example.com/in', events: ['*'] },
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
  },
  {
    name: 'one endpoint and its attempts',
    path: '/api/v1/webhooks/{hook}',
    as: 'admin',
    status: 200,
    events: ['access_token.used'],
    check: (w, body) => {
      const { webhook, attempts } = body as { webhook: { id: string }; attempts: Array<Record<string, unknown>> };
      assert.equal(webhook.id, w.ids.hook);
      assert.deepEqual(
        attempts.map((a) => [a.delivery, a.event, a.status_code, a.status]),
        [[Number(w.ids.delivery), 'webhook.test', 500, 'pending']],
      );
    },
  },
  {
    name: 'an unknown endpoint',
    path: '/api/v1/webhooks/wh_AAAAAAAAAAAAAAAA',
    as: 'admin',
    status: 404,
    events: ['access_token.used'],
  },
  {
    name: 'a test message',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/test',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'webhook.test'],
    audited: [['webhook.test', ACCOUNTS.admin.subject]],
    check: async (w) => assert.equal((await w.h.store.outboxDepth()).pending, 2),
  },
  {
    name: 'disable: the endpoint as it is now',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/disable',
    as: 'admin',
    status: 200,
    events: ['access_token.used', 'webhook.disabled'],
    audited: [['webhook.disabled', ACCOUNTS.admin.subject]],
    check: (_w, body) => assert.equal((body as { enabled: boolean }).enabled, false),
  },
  {
    name: 'enable an enabled endpoint: unchanged, nothing emitted',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/enable',
    as: 'admin',
    status: 200,
    events: ['access_token.used'],
    check: (_w, body) => assert.equal((body as { enabled: boolean }).enabled, true),
  },
  {
    name: 'a user may not disable an endpoint',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/disable',
    as: 'user',
    status: 403,
    events: ['access_token.used', 'access.admin_refused'],
    check: async (w) => assert.equal((await w.h.store.webhook(w.ids.hook))?.enabled, true),
  },
  {
    name: 'delete an endpoint',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/delete',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'webhook.deleted'],
    check: async (w) => assert.equal(await w.h.store.webhook(w.ids.hook), undefined),
  },
  {
    name: 'delete an unknown endpoint',
    method: 'POST',
    path: '/api/v1/webhooks/wh_AAAAAAAAAAAAAAAA/delete',
    as: 'admin',
    status: 404,
    events: ['access_token.used'],
  },
  {
    name: 'rotate the secret: the new one, shown only here',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/rotate-secret',
    as: 'admin',
    status: 200,
    events: ['access_token.used', 'webhook.secret_rotated'],
    check: async (w, body) => {
      assert.match(secretIn(body) ?? '', /^whsec_/);
      assert.ok(!JSON.stringify(w.h.logs).includes(secretIn(body) ?? 'x'));
      assert.equal((await w.h.store.webhook(w.ids.hook))?.rotatedAt, w.h.clock.now());
    },
  },
  {
    name: 'redeliver: the same message is due again',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/deliveries/{delivery}/redeliver',
    as: 'admin',
    status: 204,
    events: ['access_token.used', 'webhook.redelivered'],
    audited: [['webhook.redelivered', ACCOUNTS.admin.subject]],
    check: async (w) => {
      const [again] = await w.h.store.claimDeliveries(w.h.clock.now(), 10, CLAIM_MS);
      assert.deepEqual([again?.seq, again?.attempt], [Number(w.ids.delivery), 1]);
    },
  },
  {
    name: 'redeliver a delivery that does not exist',
    method: 'POST',
    path: '/api/v1/webhooks/{hook}/deliveries/999999/redeliver',
    as: 'admin',
    status: 404,
    events: ['access_token.used'],
  },
  // A use from a new client address is audited.
  {
    name: 'a token used from a new address',
    path: '/api/v1/openapi.json',
    as: 'user',
    status: 200,
    events: ['access_token.used'],
    audited: [['access_token.used', ACCOUNTS.user.subject]],
  },
];

async function world(store?: Store): Promise<World> {
  const h = await harness({ store });
  const now = h.clock.now();
  const tokens = {} as Record<Token, string>;
  const make = async (
    name: Token,
    who: keyof typeof ACCOUNTS | { subject: string; admin: boolean },
    expiresAt = now + 3_600_000,
    scope: 'read' | 'write' = 'write',
  ) => {
    tokens[name] = newAccessToken();
    const a = typeof who === 'string' ? ACCOUNTS[who] : who;
    return h.store.createAccessToken({
      hash: secretHash(tokens[name]),
      subject: a.subject,
      admin: a.admin,
      scope,
      name,
      createdAt: now,
      expiresAt,
    });
  };
  await make('admin', 'admin');
  await make('user', 'user');
  await make('other', 'other');
  await make('expired', 'user', now + 1);
  const revoked = await make('revoked', 'user');
  await h.store.revokeAccessToken(ACCOUNTS.user.subject, revoked.publicId, now);
  const read = await make('read', 'user', undefined, 'read');
  await make('demoted', { subject: ACCOUNTS.user.subject, admin: true });
  await make('disabled', { subject: 'oidc:disabled', admin: false });
  await h.store.recordSignIn({ subject: 'oidc:disabled', display: 'Dis', lastSignInAt: now - 4000, admin: false });
  await h.store.setAccountDisabled('oidc:disabled', now);
  await make('stale', { subject: 'oidc:stale', admin: false });
  await h.store.recordSignIn({
    subject: 'oidc:stale',
    display: 'Old',
    lastSignInAt: now - NINETY_DAYS - 1,
    admin: false,
  });
  await h.store.recordSignIn({ ...ACCOUNTS.admin, lastSignInAt: now - 3000 });
  await h.store.recordSignIn({ ...ACCOUNTS.user, lastSignInAt: now - 2000 });
  await h.store.recordSignIn({ ...ACCOUNTS.other, lastSignInAt: now - 1000 });
  const mine = await enrollDevice(h, ACCOUNTS.user.subject, 'mine');
  const theirs = await enrollDevice(h, ACCOUNTS.other.subject, 'theirs');
  const gone = await enrollDevice(h, ACCOUNTS.user.subject, 'gone');
  await upload(h, mine.credential, 'r1', 'mail bob@example.com', 'redacted');
  await upload(h, mine.credential, 'r2', RUN_BYTES);
  await upload(h, theirs.credential, 't1', 'their run');
  await upload(h, gone.credential, 'g1', 'an old run');
  await h.store.revokeDevice(ACCOUNTS.admin, gone.device, now);
  // Labels (docs/contract.md section 12): two sites; line 3 on the user's active device only.
  await h.store.changeLabels(ACCOUNTS.admin, mine.device, { replace: { site: 'berlin', line: '3' } });
  await h.store.changeLabels(ACCOUNTS.admin, theirs.device, { replace: { site: 'berlin' } });
  await h.store.changeLabels(ACCOUNTS.admin, gone.device, { replace: { site: 'paris' } });
  // Facts (docs/contract.md section 16): both active devices on linux, client 1.4.0 on the user's only;
  // the revoked one never reported.
  await h.store.reportFacts(mine.device, { os: 'linux', client_version: '1.4.0', hostname: 'gate 1 = north' }, now);
  await h.store.reportFacts(theirs.device, { os: 'linux', client_version: '1.3.0' }, now);
  const enroll = await h.store.createEnrollToken({
    hash: secretHash('an outstanding token'),
    owner: ACCOUNTS.user.subject,
    createdBy: ACCOUNTS.admin.subject,
    createdAt: now,
    expiresAt: now + 3_600_000,
  });
  // A webhook endpoint with one delivery whose first attempt got a 500 (a retry is due later).
  const hookDeps = {
    store: h.store,
    logger: memoryLogger(),
    clock: h.clock,
    sealKey: randomBytes(32),
    allowPrivate: false,
  };
  const actor = { ...ACCOUNTS.admin, client: null };
  const hook = await createWebhook(hookDeps, actor, {
    url: 'https://hooks.example.com/p',
    events: ['*'],
    description: '',
  });
  assert.ok(hook.ok);
  await testWebhook(hookDeps, actor, hook.webhook.id);
  const [claimed] = await h.store.claimDeliveries(now, 10, CLAIM_MS);
  assert.ok(claimed);
  const attempt = {
    seq: claimed.seq,
    attempt: 1,
    endpoint: hook.webhook.id,
    at: now,
    statusCode: 500,
    error: null,
    durationMs: 7,
  };
  await h.store.finishAttempt(attempt, { kind: 'retry', at: now + 3_600_000, disableIfFailingSince: 0 });
  await h.levelCheck.idle();
  h.clock.advance(10);
  const hookIds = { hook: hook.webhook.id, delivery: String(claimed.seq) };
  return {
    h,
    tokens,
    ids: {
      mine: mine.device,
      theirs: theirs.device,
      gone: gone.device,
      enroll: enroll.publicId,
      readId: read.publicId,
      ...hookIds,
    },
  };
}

await apiTable(rows, world, {
  title: 'the table covers every API operation',
  // Collection requests and approval have tables of their own, with their own worlds
  // (test/api/collections.test.ts, test/api/approval.test.ts); the compare of two runs its own
  // tests, `patch` applying its answers (test/api/run_compare.test.ts).
  owns: (path) =>
    !path.startsWith('/api/v1/collections') && !/\/(approve|reject)$/.test(path) && !path.endsWith('/compare'),
});
