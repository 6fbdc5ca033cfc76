// GET /metrics (docs/contract.md section 11): Prometheus text behind PADDOCK_METRICS_TOKEN (404 when
// unset), series that follow what happened, and label sets that never grow with devices or runs.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { ADMIN_PASSWORD, enrollDevice, form, harness, upload } from '../support/harness.ts';

const TOKEN = 'a-metrics-token-for-the-tests-0123456789';

/** The value of one series in a scrape, or undefined. */
function value(scrape: string, series: string): number | undefined {
  const line = scrape.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

test('without PADDOCK_METRICS_TOKEN, /metrics is as absent as any unknown path', async () => {
  const h = await harness();
  try {
    const res = await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 404);
    assert.equal(await res.text(), 'not found\n');
  } finally {
    await h.close();
  }
});

test('with the token set, only its bearer is answered', async () => {
  const h = await harness({ config: { metricsToken: TOKEN } });
  try {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(1)}`, `Basic ${TOKEN}`]) {
      const res = await h.request('/metrics', authorization ? { headers: { authorization } } : {});
      assert.equal(res.status, 401, String(authorization));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer');
    }
    const ok = await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  } finally {
    await h.close();
  }
});

test('a scrape follows what the test did, and no device, run or account becomes a label', async () => {
  const h = await harness({ config: { metricsToken: TOKEN } });
  try {
    const { device, credential } = await enrollDevice(h, 'oidc:user-1');
    assert.equal((await upload(h, credential, 'run-one', 'abc', 'full')).status, 201);
    assert.equal((await upload(h, credential, 'run-two', 'defgh', 'minimal')).status, 201);
    assert.equal((await upload(h, credential, 'run-two', 'other', 'minimal')).status, 409);
    assert.equal((await upload(h, credential, 'run-three', 'x', 'secret')).status, 400);
    await h.request('/login', form({ username: 'admin', password: 'wrong password here' }));
    const ok = await h.request('/login', form({ username: 'admin', password: ADMIN_PASSWORD }));
    assert.equal(ok.status, 303);
    const { cookie, csrf } = h.signIn({ subject: 'local:admin', admin: true });
    assert.equal((await h.request('/devices', { headers: { cookie } })).status, 200);
    assert.equal((await h.request(`/runs/${device}/no-such-run`, { headers: { cookie } })).status, 404);
    assert.equal((await h.request('/no/such/path')).status, 404);

    const scrape = await (await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.equal(value(scrape, 'paddock_uploads_total{level="full",status="201"}'), 1);
    assert.equal(value(scrape, 'paddock_uploads_total{level="minimal",status="201"}'), 1);
    assert.equal(value(scrape, 'paddock_uploads_total{level="minimal",status="409"}'), 1);
    assert.equal(value(scrape, 'paddock_uploads_total{level="invalid",status="400"}'), 1);
    assert.equal(value(scrape, 'paddock_sign_ins_total{method="local",outcome="failed"}'), 1);
    assert.equal(value(scrape, 'paddock_sign_ins_total{method="local",outcome="succeeded"}'), 1);
    assert.equal(value(scrape, 'paddock_throttle_delay_seconds_count'), 2, 'both attempts, no delay yet');
    assert.equal(value(scrape, 'paddock_throttle_delay_seconds_bucket{le="0"}'), 2);
    assert.equal(
      value(scrape, 'paddock_http_requests_total{server="console",route="/devices",method="GET",status="200"}'),
      1,
    );
    assert.equal(
      value(
        scrape,
        'paddock_http_requests_total{server="console",route="/runs/:device/:id",method="GET",status="404"}',
      ),
      1,
    );
    assert.equal(
      value(scrape, 'paddock_http_requests_total{server="console",route="unmatched",method="GET",status="404"}'),
      1,
    );
    assert.equal(value(scrape, 'paddock_devices{status="active"}'), 1);
    assert.equal(value(scrape, 'paddock_devices{status="revoked"}'), 0);
    // By level (issue 23), as the bytes are.
    assert.equal(value(scrape, 'paddock_runs{level="full"}'), 1);
    assert.equal(value(scrape, 'paddock_runs{level="redacted"}'), 0);
    assert.equal(value(scrape, 'paddock_runs{level="minimal"}'), 1);
    assert.equal(value(scrape, 'paddock_run_bytes{level="full"}'), 3);
    assert.equal(value(scrape, 'paddock_run_bytes{level="minimal"}'), 5);
    assert.ok(
      (value(
        scrape,
        'paddock_http_request_duration_seconds_count{server="control",route="/v1/runs/:id",method="PUT"}',
      ) ?? 0) >= 4,
    );
    for (const unbounded of [device, 'run-one', 'run-two', 'no-such-run', 'no/such/path', 'oidc:user-1'])
      assert.ok(!scrape.includes(unbounded), `${unbounded} is not a label`);

    await h.request(`/devices/${device}/revoke`, form({ csrf }, cookie));
    h.clock.advance(31 * 86_400_000);
    const later = await (await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.equal(value(later, 'paddock_devices{status="revoked"}'), 1);
    assert.equal(value(later, 'paddock_devices{status="active"}'), 0);
    assert.equal(value(later, 'paddock_devices_revoked_total{by="account"}'), 1);
  } finally {
    await h.close();
  }
});

test('counters with a known label set start at 0, and promtool finds nothing to say of a scrape', async () => {
  const h = await harness({ config: { metricsToken: TOKEN } });
  try {
    const { credential } = await enrollDevice(h, 'oidc:user-1');
    assert.equal((await upload(h, credential, 'run-one', 'abc', 'redacted')).status, 201);
    const scrape = await (await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    for (const series of [
      'paddock_sign_ins_total{method="local",outcome="succeeded"}',
      'paddock_sign_ins_total{method="local",outcome="failed"}',
      'paddock_sign_ins_total{method="oidc",outcome="succeeded"}',
      'paddock_sign_ins_total{method="oidc",outcome="exchange_failed"}',
      'paddock_sign_ins_total{method="oidc",outcome="token_rejected"}',
      'paddock_store_errors_total{kind="unavailable"}',
      'paddock_store_errors_total{kind="full"}',
      'paddock_sweeper_runs_deleted_total{level="full"}',
      'paddock_sweeper_runs_deleted_total{level="redacted"}',
      'paddock_sweeper_runs_deleted_total{level="minimal"}',
      'paddock_devices_revoked_total{by="account"}',
      'paddock_devices_revoked_total{by="system"}',
    ])
      assert.equal(value(scrape, series), 0, series);
    assert.equal(value(scrape, 'paddock_runs{level="redacted"}'), 1);

    // Debian's package \`prometheus\` brings promtool; its lint prints nothing for a clean scrape.
    const promtool = spawnSync('promtool', ['check', 'metrics'], { input: scrape, encoding: 'utf8' });
    assert.ifError(promtool.error);
    assert.equal(`${promtool.stdout}${promtool.stderr}`, '');
    assert.equal(promtool.status, 0);
  } finally {
    await h.close();
  }
});

test('the outbox gauges count what is owed to each endpoint from the commit on, and the age of the oldest', async () => {
  const h = await harness({ config: { metricsToken: TOKEN } });
  try {
    const scrape = async () => (await h.request('/metrics', { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    assert.equal(value(await scrape(), 'paddock_webhook_outbox_pending'), 0);
    assert.equal(value(await scrape(), 'paddock_webhook_outbox_oldest_age_seconds'), 0);
    for (const i of [1, 2])
      await h.store.createWebhook({
        id: `wh_metrics${i}`,
        url: `https://hooks${i}.example/`,
        events: ['run.stored'],
        description: '',
        sealedSecret: 'sealed',
        createdAt: h.clock.now(),
        createdBy: 'local:admin',
      });
    const { credential } = await enrollDevice(h, 'oidc:user-1');
    assert.equal((await upload(h, credential, 'run-one', 'abc', 'full')).status, 201);
    h.clock.advance(90_000);
    // No sender runs here: the upload's one outbox row is owed to both endpoints.
    const later = await scrape();
    assert.equal(value(later, 'paddock_webhook_outbox_pending'), 2);
    assert.equal(value(later, 'paddock_webhook_outbox_oldest_age_seconds'), 90);
  } finally {
    await h.close();
  }
});
