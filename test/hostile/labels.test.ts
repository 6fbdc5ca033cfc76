// The label routes (docs/contract.md section 12) attacked: labels of every forbidden shape, raw and
// percent-encoded, on raw sockets to the device page's form, the bulk action, the filter and the
// API; forms of 70 fields; then a stop (SIGTERM to a real `paddock serve`) in the middle of a bulk
// label, after which each device is either labelled, with its audit record, or untouched.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { openSqliteStore } from '../../src/store/sqlite/store.ts';
import { exchange, live, statuses } from '../support/live.ts';
import { paddock } from '../support/process.ts';

const ADMIN = { subject: 'local:admin', admin: true };

/** Labels no rule admits, as they would be written into a form or a query (percent-encoded raw bytes too). */
const FORBIDDEN = [
  'Site=x',
  '-site=x',
  '=x',
  'site',
  'site=a b',
  'site=a=b',
  'site=<script>',
  `${'k'.repeat(64)}=v`,
  `site=${'v'.repeat(64)}`,
  'site=%00',
  'site=%C3%28',
  'site=%E2%80%AE',
  'si%0Ate=x',
  '%FF%FE=x',
  `site=${'%41'.repeat(5000)}`,
];

/** A label in a request target: a space would end the target (a malformed request line, closed). */
const inUrl = (label: string) => label.replaceAll(' ', '%20');

test('labels of every forbidden shape on raw sockets: each refused naming it, nothing changed, no 500', async () => {
  const l = await live();
  try {
    const { cookie, csrf } = await l.signIn();
    const token = await l.accessToken();
    const { device } = await l.enroll('labelled');
    const store = () => fetch(`${l.url}/api/v1/devices/${device}`, { headers: { authorization: `Bearer ${token}` } });
    const set = await fetch(`${l.url}/api/v1/devices/${device}/labels`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ set: { site: 'berlin' } }),
    });
    assert.equal(set.status, 200);
    const head = (method: string, path: string, extra: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nCookie: ${cookie}\r\n${extra}`;
    const form = (body: string) =>
      `Content-Type: application/x-www-form-urlencoded\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\n\r\n${body}`;
    const json = (body: string) =>
      `Authorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const requests: Array<[what: string, request: string]> = [];
    for (const label of FORBIDDEN) {
      requests.push(
        ['page form', head('POST', `/devices/${device}/labels`, form(`csrf=${csrf}&labels=ok%3D1%0A${label}`))],
        [
          'bulk label',
          head('POST', '/devices/bulk', form(`csrf=${csrf}&action=label&label=${label}&device=${device}`)),
        ],
      );
      // A key alone is a filter (any value) and, in the API, a key with an empty value.
      if (label === 'site') continue;
      requests.push(
        ['filter', head('GET', `/devices?label=${inUrl(label)}`, '\r\n')],
        ['API filter', head('GET', `/api/v1/devices?label=${inUrl(label)}`, `Authorization: Bearer ${token}\r\n\r\n`)],
      );
      const decoded = (() => {
        try {
          return decodeURIComponent(label);
        } catch {
          return label;
        }
      })();
      const at = decoded.indexOf('=');
      const [key, value] = at < 0 ? [decoded, ''] : [decoded.slice(0, at), decoded.slice(at + 1)];
      requests.push([
        'API set',
        head('POST', `/api/v1/devices/${device}/labels`, json(JSON.stringify({ set: { [key]: value } }))),
      ]);
    }
    // 70 fields: seventy lines, seventy bulk labels, seventy filters, a 70-member JSON object.
    const lines = Array.from({ length: 70 }, (_, i) => `k${i}%3Dv`).join('%0A');
    requests.push(
      ['70 lines', head('POST', `/devices/${device}/labels`, form(`csrf=${csrf}&labels=${lines}`))],
      [
        '70 labels fields',
        head(
          'POST',
          `/devices/${device}/labels`,
          form(`csrf=${csrf}&${Array.from({ length: 70 }, (_, i) => `labels=k${i}%3Dv`).join('&')}`),
        ),
      ],
      [
        '70 bulk labels',
        head(
          'POST',
          '/devices/bulk',
          form(
            `csrf=${csrf}&action=label&${Array.from({ length: 70 }, (_, i) => `label=k${i}%3Dv`).join('&')}&device=${device}`,
          ),
        ),
      ],
      ['70 filters', head('GET', `/devices?${Array.from({ length: 70 }, (_, i) => `label=k${i}`).join('&')}`, '\r\n')],
      [
        '70 members',
        head(
          'POST',
          `/api/v1/devices/${device}/labels`,
          json(JSON.stringify({ set: Object.fromEntries(Array.from({ length: 70 }, (_, i) => [`k${i}`, 'v'])) })),
        ),
      ],
      [
        'a key twice in JSON',
        head('POST', `/api/v1/devices/${device}/labels`, json('{"set":{"site":"a","site":"b"}}')),
      ],
      [
        'nested JSON',
        head('POST', `/api/v1/devices/${device}/labels`, json(`{"set":${'['.repeat(3000)}${']'.repeat(3000)}}`)),
      ],
    );
    for (const [what, request] of requests) {
      const raw = await exchange(
        l.port,
        `${request}GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:${l.port}\r\nConnection: close\r\n\r\n`,
      );
      const codes = statuses(raw);
      assert.equal(codes.length, 2, `${what}: ${request.slice(0, 120)}: both answered\n${raw.slice(0, 300)}`);
      assert.ok((codes[0] ?? 0) >= 400 && (codes[0] ?? 0) < 500, `${what} ${request.slice(0, 100)}: ${codes[0]}`);
      assert.equal(codes[1], 200, 'the next request on the connection is answered');
      assert.doesNotMatch(raw, /at .*\.ts:\d+|Error:/, 'no stack trace');
    }
    assert.deepEqual(((await (await store()).json()) as { labels: unknown }).labels, { site: 'berlin' }, 'unchanged');
    assert.deepEqual(
      l.logs.filter((r) => r.level === 'error' || r.event === 'device.labelled').map((r) => r.event),
      ['device.labelled'],
      'only the one change made on purpose',
    );
  } finally {
    await l.close();
  }
});

test('SIGTERM in the middle of a bulk label: every device is labelled with its audit record, or untouched', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-labels-stop-'));
  const dataDir = join(dir, 'data');
  try {
    // 60 devices (a form holds at most 64 fields) of five labels each, enrolled through the store before the server starts.
    const ids: string[] = [];
    const seed = openSqliteStore(dataDir);
    await seed.createEnrollToken({
      hash: 'stop-token',
      owner: 'oidc:line',
      createdBy: 'local:admin',
      createdAt: Date.now(),
      expiresAt: Date.now() + 3_600_000,
      uses: 60,
      labels: { fleet: 'main', site: 'berlin', line: '3', rack: 'a', shift: 'night' },
    });
    for (let i = 0; i < 60; i++) {
      const id = `d_stop${i}`;
      await seed.enrollDevice({
        tokenHash: 'stop-token',
        now: Date.now(),
        deviceId: id,
        name: id,
        credentialHash: `c${i}`,
      });
      ids.push(id);
    }
    await seed.close();
    const password = 'the labels stop test password';
    const serve = paddock(['serve'], {
      PADDOCK_LISTEN: '127.0.0.1:0',
      PADDOCK_DATA_DIR: dataDir,
      PADDOCK_ADMIN_PASSWORD: password,
    });
    const base = (await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
    const login = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password }),
      redirect: 'manual',
    });
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${base}/devices`, { headers: { cookie } })).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
    const body = new URLSearchParams([
      ['csrf', csrf],
      ['action', 'label'],
      ['label', 'site=paris'],
      ...ids.map((id): [string, string] => ['device', id]),
    ]);
    const pending = fetch(`${base}/devices/bulk`, {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: body.toString(),
      redirect: 'manual',
    }).then(
      async (r) => (r.status === 303 ? 303 : `${r.status} ${await r.text()}`),
      () => 'cut',
    );
    // Stopped once the first device is labelled (read from another connection), so mid-action.
    const watch = new DatabaseSync(join(dataDir, 'paddock.db'), { readOnly: true });
    const done = watch.prepare("SELECT count(*) AS n FROM device_labels WHERE key = 'site' AND value = 'paris'");
    for (let i = 0; i < 2000 && Number((done.get() as { n: number }).n) === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 1));
    watch.close();
    serve.child.kill('SIGTERM');
    const status = await pending;
    assert.equal(await serve.exited, 0, 'a clean stop');
    assert.ok(status === 303 || status === 'cut', `${String(status)} ${serve.output().stderr.slice(-500)}`);

    const store = openSqliteStore(dataDir);
    try {
      const trail = new Set<string>();
      for await (const batch of store.auditBatches({ event: 'device.labelled' }, 100))
        for (const r of batch) {
          assert.equal(r.detail, 'keys=site', 'each record names the key changed');
          trail.add(r.device ?? '');
        }
      let labelled = 0;
      for (const id of ids) {
        const labels = { ...(await store.deviceVisibleTo(ADMIN, id))?.labels };
        const changed = labels.site === 'paris';
        assert.deepEqual(labels, {
          fleet: 'main',
          line: '3',
          rack: 'a',
          shift: 'night',
          site: changed ? 'paris' : 'berlin',
        });
        assert.equal(trail.has(id), changed, `${id}: labelled exactly when its change is in the audit trail`);
        if (changed) labelled++;
      }
      assert.ok(labelled > 0, 'the bulk action had begun');
      if (status === 303) assert.equal(labelled, ids.length, 'an answered bulk action did every device');
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
