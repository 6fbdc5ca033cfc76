// deploy/prometheus/alerts.yml and deploy/grafana/paddock.json (CONTRACT section 18): promtool
// (Debian's `prometheus`) accepts the rules and passes their unit tests, each rule has a case that
// fires and one that stays quiet (shown by breaking every rule both ways), every dashboard query is
// PromQL promtool accepts, and every series a query or a rule names is in a live scrape of a real
// server that has seen traffic (an upload, pages, a webhook delivery, a retention sweep).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CERTIFICATE_DAYS } from '../../src/tls/control_identity.ts';
import { live } from '../support/live.ts';

const PROMETHEUS = new URL('../../deploy/prometheus/', import.meta.url).pathname;
const RULES = join(PROMETHEUS, 'alerts.yml');
const RULE_TESTS = ['alerts.test.yml', 'alerts_days.test.yml'];
const DASHBOARD = new URL('../../deploy/grafana/paddock.json', import.meta.url).pathname;
const TOKEN = 'a-metrics-token-for-the-monitoring-test-0123';

const found = spawnSync('promtool', ['--version']).status === 0;
const skip = !found && !process.env.CI && 'promtool is not installed (Debian package prometheus)';

/** The rules CONTRACT section 18 names. */
const NAMED = [
  'PaddockInstanceDown',
  'PaddockErrors',
  'PaddockStoreErrors',
  'PaddockWebhookBacklog',
  'PaddockAuditForwardingFailing',
  'PaddockCertificateExpiring',
  'PaddockDevicesAwaitingApproval',
  'PaddockSweepStalled',
];

/** The series Prometheus makes itself for each target, which a rule may name. */
const PROMETHEUS_MADE = new Set(['up']);

function promtool(args: string[], cwd?: string) {
  const r = spawnSync('promtool', args, { encoding: 'utf8', cwd });
  assert.ifError(r.error);
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

/** Each rule of alerts.yml: its name and its expression (a line, or a `|` block). */
function rules(text: string): Array<{ alert: string; expr: string }> {
  return text
    .split(/^ {6}- alert: /m)
    .slice(1)
    .map((block) => {
      const alert = block.split('\n')[0] ?? '';
      const m = /^ {8}expr: (?:\|\n((?: {10}.*\n)+)|(.*)\n)/m.exec(block);
      assert.ok(m, `${alert} has an expr`);
      return { alert, expr: (m[1] ?? m[2] ?? '').replace(/\s+/g, ' ').trim() };
    });
}

/** alerts.yml with every rule's expression replaced (and, with `dropFor`, its `for` removed). */
function everyRule(text: string, expr: string, dropFor: boolean): string {
  let out = text.replace(/^ {8}expr: (?:\|\n(?: {10}.*\n)+|.*\n)/gm, `        expr: ${expr}\n`);
  if (dropFor) out = out.replace(/^ {8}for: .*\n/gm, '');
  return out;
}

/** The unit tests run against `rulesText` in place of alerts.yml. */
async function unitTests(rulesText: string) {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-rules-'));
  try {
    await writeFile(join(dir, 'alerts.yml'), rulesText);
    for (const file of RULE_TESTS) await copyFile(join(PROMETHEUS, file), join(dir, file));
    return promtool(['test', 'rules', ...RULE_TESTS], dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Every query of the dashboard, with the panel it is in. */
interface Query {
  panel: string;
  expr: string;
}

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: Array<{ refId: string; expr: string; datasource?: { type: string; uid: string } }>;
}

async function dashboard() {
  return JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
    title: string;
    uid: string;
    schemaVersion: number;
    panels: Panel[];
    templating: { list: Array<{ name: string; type: string; query: string }> };
  };
}

async function queries(): Promise<Query[]> {
  return (await dashboard()).panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));
}

/** Grafana's own interval variable, as Prometheus would see it once Grafana has put it in. */
const asPromQL = (expr: string) => expr.replaceAll('$__rate_interval', '5m');

/**
 * The metric names a PromQL expression names: what is left once strings, label matchers, ranges,
 * grouping clauses, functions (a name before `(`), keywords and numbers are taken out.
 */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);
  const names = [...bare.matchAll(/(?<![\w.])([A-Za-z_:][\w:]*)(\s*\()?/g)]
    .filter((m) => m[2] === undefined && !keywords.has(m[1]!.toLowerCase()))
    .map((m) => m[1]!);
  return [...new Set(names)];
}

test('metricNames finds the series of an expression and nothing else', () => {
  assert.deepEqual(
    metricNames(
      'histogram_quantile(0.95, sum by (server, le) (rate(a_bucket{job="paddock", route=~"/x|b"}[$__rate_interval]))) / on (instance) group_left (kind) b_total > bool 1e3 and time() - c_seconds offset 5m',
    ),
    ['a_bucket', 'b_total', 'c_seconds'],
  );
  assert.deepEqual(metricNames('sum(rate(x{a="sum(y)"}[5m])) without (z)'), ['x']);
});

test('promtool check rules accepts alerts.yml, which has every rule section 18 names', { skip }, async () => {
  const checked = promtool(['check', 'rules', RULES]);
  assert.equal(checked.status, 0, checked.out);
  assert.match(checked.out, /SUCCESS: 8 rules found/);
  assert.deepEqual(
    rules(await readFile(RULES, 'utf8')).map((r) => r.alert),
    NAMED,
  );
  // The check is real: a broken expression is refused.
  const dir = await mkdtemp(join(tmpdir(), 'paddock-rules-'));
  try {
    const broken = (await readFile(RULES, 'utf8')).replace('up{job="paddock"} == 0', 'up{job="paddock" == 0');
    await writeFile(join(dir, 'alerts.yml'), broken);
    const refused = promtool(['check', 'rules', join(dir, 'alerts.yml')]);
    assert.equal(refused.status, 1);
    assert.match(refused.out, /parse error/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test(
  'promtool test rules passes, and every rule has a case that fires and one that stays quiet',
  { skip },
  async () => {
    const text = await readFile(RULES, 'utf8');
    const passed = await unitTests(text);
    assert.equal(passed.status, 0, passed.out);
    assert.equal(passed.out.match(/SUCCESS/g)?.length, RULE_TESTS.length, passed.out);

    // Every rule made never to fire: each rule's firing case fails (an expected alert, none got).
    const never = await unitTests(everyRule(text, 'vector(1) == 0', false));
    assert.equal(never.status, 1);
    for (const alert of NAMED)
      assert.match(
        never.out,
        new RegExp(`alertname: ${alert}, time: [^,]+, \\n\\s+exp:\\[\\n\\s+0:[\\s\\S]*?\\], \\n\\s+got:\\[\\]`),
        `${alert} has a case that fires`,
      );
    // Every rule made to fire always: each rule's quiet case fails (no alert expected, one got).
    const always = await unitTests(everyRule(text, 'vector(1)', true));
    assert.equal(always.status, 1);
    for (const alert of NAMED)
      assert.match(
        always.out,
        new RegExp(`alertname: ${alert}, time: [^,]+, \\n\\s+exp:\\[\\], \\n\\s+got:\\[\\n\\s+0:`),
        `${alert} has a case that stays quiet`,
      );
  },
);

test('the dashboard is a Grafana dashboard over a data source variable of type prometheus', async () => {
  const d = await dashboard();
  assert.equal(d.title, 'Paddock');
  assert.equal(d.uid, 'paddock');
  assert.ok(Number.isInteger(d.schemaVersion) && d.schemaVersion >= 36);
  const variable = d.templating.list.find((v) => v.name === 'datasource');
  assert.deepEqual(variable && { type: variable.type, query: variable.query }, {
    type: 'datasource',
    query: 'prometheus',
  });
  const ids = new Set<number>();
  for (const p of d.panels) {
    assert.ok(!ids.has(p.id), `panel id ${p.id} is unique`);
    ids.add(p.id);
    const { x, y, w, h } = p.gridPos;
    assert.ok(x >= 0 && w > 0 && x + w <= 24 && y >= 0 && h > 0, `${p.title} fits the 24 columns`);
    if (p.type === 'row') continue;
    assert.ok(['timeseries', 'stat'].includes(p.type), `${p.title}: ${p.type}`);
    assert.deepEqual(p.datasource, { type: 'prometheus', uid: '${datasource}' }, p.title);
    assert.ok((p.targets ?? []).length > 0, `${p.title} has a query`);
    for (const t of p.targets ?? []) {
      assert.deepEqual(t.datasource, { type: 'prometheus', uid: '${datasource}' }, p.title);
      assert.match(t.refId, /^[A-Z]$/);
      assert.match(t.expr, /job="paddock"/, `${p.title}: scraped as job="paddock"`);
      // No variable but Grafana's own interval (which asPromQL replaces).
      assert.doesNotMatch(t.expr.replaceAll('$__rate_interval', ''), /\$/, p.title);
    }
  }
  // What the issue asks the dashboard to show.
  const named = new Set((await queries()).flatMap((q) => metricNames(q.expr)));
  for (const series of [
    'paddock_http_requests_total',
    'paddock_http_request_duration_seconds_bucket',
    'paddock_uploads_total',
    'paddock_devices',
    'paddock_requests_held',
    'paddock_collection_targets',
    'paddock_webhook_outbox_pending',
    'paddock_webhook_outbox_oldest_age_seconds',
    'paddock_store_errors_total',
  ])
    assert.ok(named.has(series), `a panel shows ${series}`);
});

test('every dashboard query is PromQL promtool accepts', { skip }, async () => {
  const all = await queries();
  assert.ok(all.length >= 10);
  const dir = await mkdtemp(join(tmpdir(), 'paddock-dashboard-'));
  try {
    // Each query as a recording rule: promtool parses every expression of a rule file.
    const file = join(dir, 'queries.yml');
    const rule = (expr: string, i: number) =>
      `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(asPromQL(expr))}\n`;
    await writeFile(file, `groups:\n  - name: dashboard\n    rules:\n${all.map((q, i) => rule(q.expr, i)).join('')}`);
    const checked = promtool(['check', 'rules', file]);
    assert.equal(checked.status, 0, checked.out);
    assert.match(checked.out, new RegExp(`SUCCESS: ${all.length} rules found`));
    // The check is real: an expression missing a parenthesis is refused.
    await writeFile(
      file,
      `groups:\n  - name: dashboard\n    rules:\n${rule('sum(rate(paddock_uploads_total[5m])', 0)}`,
    );
    assert.equal(promtool(['check', 'rules', file]).status, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('every series a dashboard query or an alert names is in a live scrape of a server that has seen traffic', async () => {
  // A webhook receiver on loopback, so a delivery is attempted and counted.
  const received: string[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received.push(req.headers['webhook-id'] as string);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const l = await live({
    PADDOCK_METRICS_TOKEN: TOKEN,
    PADDOCK_WEBHOOK_ALLOW_PRIVATE: 'true',
    PADDOCK_RETENTION_FULL: '30d',
    PADDOCK_SWEEP_INTERVAL: '1s',
  });
  try {
    const scrape = async () =>
      (await fetch(`${l.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).text();
    // Traffic: a device enrolls and uploads, an operator reads pages, a webhook is tested.
    const { credential } = await l.enroll('monitored');
    const put = await fetch(`${l.url}/v1/runs/run-1`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full', 'content-type': 'text/plain' },
      body: 'a run',
    });
    assert.equal(put.status, 201);
    const { cookie } = await l.signIn();
    for (const page of ['/', '/devices', '/runs', '/audit'])
      assert.equal((await fetch(`${l.url}${page}`, { headers: { cookie } })).status, 200, page);
    const token = await l.accessToken('monitoring');
    const api = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const made = await fetch(`${l.url}/api/v1/webhooks`, {
      method: 'POST',
      headers: api,
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, events: ['*'] }),
    });
    assert.equal(made.status, 201);
    const { webhook } = (await made.json()) as { webhook: { id: string } };
    assert.equal(
      (await fetch(`${l.url}/api/v1/webhooks/${webhook.id}/test`, { method: 'POST', headers: api })).status,
      204,
    );

    // Until the delivery is counted and a retention sweep has been recorded (every second here).
    let text = '';
    for (let i = 0; i < 100; i++) {
      text = await scrape();
      if (
        text.includes('paddock_webhook_deliveries_total{') &&
        text.includes('paddock_sweep_last_timestamp_seconds{sweep="retention"}')
      )
        break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.ok(received.length > 0, 'the receiver got the test message');
    const scraped = new Set(
      text
        .split('\n')
        .filter((line) => line !== '' && !line.startsWith('#'))
        .map((line) => /^[A-Za-z_:][\w:]*/.exec(line)?.[0]),
    );
    for (const q of await queries())
      for (const name of metricNames(q.expr)) {
        assert.match(name, /^paddock_/, `${q.panel}: ${name} is Paddock's`);
        assert.ok(scraped.has(name), `${q.panel}: ${name} is in the scrape`);
      }
    for (const r of rules(await readFile(RULES, 'utf8')))
      for (const name of metricNames(r.expr))
        assert.ok(PROMETHEUS_MADE.has(name) || scraped.has(name), `${r.alert}: ${name} is in the scrape`);

    // The gauges the alerts brought tell the truth.
    const sample = (series: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${series} `))
          ?.slice(series.length + 1),
      );
    // The control certificate generated at the first start: CERTIFICATE_DAYS from about now.
    const expires = sample('paddock_certificate_expiry_timestamp_seconds{certificate="control"}');
    assert.ok(Math.abs(Date.now() / 1000 + CERTIFICATE_DAYS * 86_400 - expires) < 300, `expires at ${expires}`);
    assert.ok(!text.includes('certificate="admin"'), 'no PADDOCK_TLS, no admin certificate');
    assert.equal(sample('paddock_sweep_interval_seconds{sweep="retention"}'), 1);
    assert.equal(sample('paddock_sweep_interval_seconds{sweep="minute"}'), 60);
    const swept = sample('paddock_sweep_last_timestamp_seconds{sweep="retention"}');
    assert.ok(Math.abs(Date.now() / 1000 - swept) < 10, `the last retention sweep: ${swept}`);
    // Exported from the start (issue 42): no minute sweep has finished yet, so its gauge holds the
    // process's start, and PaddockSweepStalled would see a first sweep that never finishes.
    const minute = sample('paddock_sweep_last_timestamp_seconds{sweep="minute"}');
    assert.ok(Math.abs(Date.now() / 1000 - minute) < 60 && minute <= swept, `no minute sweep yet: ${minute}`);
    assert.equal(sample('paddock_audit_syslog_failures_total'), 0);
    // The new series pass promtool's lint too (as test/console/metrics checks the rest).
    if (!skip) {
      const lint = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
      assert.ifError(lint.error);
      assert.equal(`${lint.stdout}${lint.stderr}`, '');
      assert.equal(lint.status, 0);
    }
  } finally {
    await l.close();
    receiver.close();
  }
});
