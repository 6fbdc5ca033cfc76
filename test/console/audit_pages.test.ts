// GET /audit and GET /audit.jsonl (docs/contract.md section 9): each filter, paging that keeps the
// filters, the page saying which filters apply, a named 400 for each bad parameter, admins only,
// and the JSON lines streamed whole, in order, a batch at a time.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AuditRecord } from '../../src/domain/audit.ts';
import { AUDIT_JSONL_TYPE, AUDIT_STREAM_BATCH } from '../../src/console/audit_jsonl.ts';
import { type Harness, harness } from '../support/harness.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const DAY = 86_400_000;
const NOV_1 = Date.UTC(2026, 10, 1);

function entry(at: number, event: string, more: Partial<AuditRecord> = {}): AuditRecord {
  return { at, event, account: 'local:admin', client: '192.0.2.1', device: null, run: null, detail: '', ...more };
}

/** Ten days of records: each day a revoke of d<day> by system and a run deletion on dx by the admin. */
async function trail(h: Harness) {
  for (let day = 0; day < 10; day++) {
    await h.store.appendAudit(
      entry(NOV_1 + day * DAY + 1000, 'device.revoked', { account: 'system', client: null, device: `d${day}` }),
    );
    await h.store.appendAudit(entry(NOV_1 + day * DAY + 2000, 'run.deleted', { device: 'dx', run: `r${day}` }));
  }
}

async function get(h: Harness, path: string, who: keyof typeof ACCOUNTS = 'admin') {
  const res = await h.request(path, { headers: { cookie: h.signIn(ACCOUNTS[who]).cookie } });
  return { res, body: await res.text() };
}

/** The rows of the page's table as "event device run". */
function rows(body: string): string[] {
  return [...body.matchAll(/<tr>\s*<td>.*?<\/td>\s*<td><code>([^<]+)<\/code><\/td>(.*?)<\/tr>/gs)].map(
    ([, event, rest]) => {
      const codes = [...(rest ?? '').matchAll(/<code>([^<]+)<\/code>/g)].map((m) => m[1]);
      return [event, ...codes].join(' ');
    },
  );
}

test('GET /audit: newest first, every record without filters, and says no filter applies', async () => {
  const h = await harness();
  try {
    await trail(h);
    const { res, body } = await get(h, '/audit');
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(body, /No filter applies/);
    const shown = rows(body);
    assert.equal(shown.length, 20);
    assert.deepEqual(shown.slice(0, 3), ['run.deleted dx r9', 'device.revoked d9', 'run.deleted dx r8']);
    assert.match(body, /<form method="get" action="\/audit">/);
    assert.doesNotMatch(body, /<script|style=/);
  } finally {
    await h.close();
  }
});

test('GET /audit: each filter alone, and all together, and the page says which apply', async () => {
  const h = await harness();
  try {
    await trail(h);
    const cases: Array<[string, string[], RegExp]> = [
      [
        'actor=system',
        Array.from({ length: 10 }, (_, i) => `device.revoked d${9 - i}`),
        /actor is <code>system<\/code>/,
      ],
      [
        'event=run.deleted',
        Array.from({ length: 10 }, (_, i) => `run.deleted dx r${9 - i}`),
        /event is <code>run.deleted<\/code>/,
      ],
      ['device=d4', ['device.revoked d4'], /device is <code>d4<\/code>/],
      [
        'since=2026-11-09',
        ['run.deleted dx r9', 'device.revoked d9', 'run.deleted dx r8', 'device.revoked d8'],
        /on or after <code>2026-11-09<\/code>/,
      ],
      ['until=2026-11-01', ['run.deleted dx r0', 'device.revoked d0'], /on or before <code>2026-11-01<\/code>/],
      [
        'since=2026-11-03&until=2026-11-03',
        ['run.deleted dx r2', 'device.revoked d2'],
        /on or after <code>2026-11-03<\/code>, on or before <code>2026-11-03<\/code>/,
      ],
      [
        'actor=local%3Aadmin&event=run.deleted&device=dx&since=2026-11-05&until=2026-11-06',
        ['run.deleted dx r5', 'run.deleted dx r4'],
        /actor is <code>local:admin<\/code>, event is <code>run.deleted<\/code>, device is <code>dx<\/code>/,
      ],
      ['actor=oidc%3Anobody', [], /No records/],
      // Empty fields, as the form sends them, do not filter: every record (checked by count below).
      ['actor=&event=&device=&since=&until=', [], /No filter applies/],
    ];
    for (const [query, expected, says] of cases) {
      const { res, body } = await get(h, `/audit?${query}`);
      assert.equal(res.status, 200, query);
      if (query.startsWith('actor=&')) assert.equal(rows(body).length, 20, query);
      else assert.deepEqual(rows(body), expected, query);
      assert.match(body, says, query);
    }
    // The form shows the filters that apply, to change them.
    const { body } = await get(h, '/audit?event=run.deleted&device=dx&since=2026-11-05');
    assert.match(body, /<option value="run.deleted" selected>/);
    assert.match(body, /name="device" value="dx"/);
    assert.match(body, /name="since" value="2026-11-05"/);
    assert.match(body, /href="\/audit.jsonl\?event=run.deleted&amp;device=dx&amp;since=2026-11-05"/);
  } finally {
    await h.close();
  }
});

test('GET /audit: keyset pages of 50 keep the filters, meet every record once, and end', async () => {
  const h = await harness();
  try {
    for (let i = 0; i < 120; i++)
      await h.store.appendAudit(
        entry(NOV_1 + i * 60_000, i % 3 ? 'run.deleted' : 'device.revoked', { device: 'd1', run: `r${i}` }),
      );
    await h.store.appendAudit(entry(NOV_1, 'run.deleted', { device: 'd2', run: 'other' }));
    const seen: string[] = [];
    let path = '/audit?event=run.deleted&device=d1';
    for (let n = 0; n < 5 && path; n++) {
      const { res, body } = await get(h, path);
      assert.equal(res.status, 200);
      assert.match(
        body,
        /event is <code>run.deleted<\/code>, device is <code>d1<\/code>/,
        'every page says its filters',
      );
      seen.push(...rows(body).map((r) => r.split(' ')[2] ?? ''));
      const older = /<a href="(\/audit\?[^"]*before=[^"]+)">Older records<\/a>/
        .exec(body)?.[1]
        ?.replaceAll('&amp;', '&');
      if (older) assert.match(older, /^\/audit\?event=run.deleted&device=d1&from=[0-9]+&before=[0-9]+\.[0-9]+$/);
      // Each page says which records it shows of how many the filter holds (docs/contract.md section 22).
      assert.match(body, [/Records 1–50 of 80\./, /Records 51–80 of 80\./][n] ?? /^$/);
      if (n > 0) assert.match(body, /href="\/audit\?event=run.deleted&amp;device=d1">Newest records</);
      path = older ?? '';
    }
    const expected = Array.from({ length: 120 }, (_, i) => 119 - i)
      .filter((i) => i % 3)
      .map((i) => `r${i}`);
    assert.deepEqual(seen, expected);
  } finally {
    await h.close();
  }
});

test('GET /audit: each bad parameter is a 400 with the page, the message beside its field; /audit.jsonl a plain-text 400 naming it', async () => {
  const h = await harness();
  try {
    const cases: Array<[string, RegExp]> = [
      ['actor=admin', /^actor must be system, an account subject/],
      ['actor=oidc%3A%E2%80%AEx', /^actor must be/],
      ['event=device.exploded', /^event must be one of the audited events/],
      ['device=a%2Fb', /^device must be a device id/],
      ['since=2026-13-01', /^since and until must be days written YYYY-MM-DD \(UTC\)/],
      ['since=2026-02-30', /^since and until must be days/],
      ['until=yesterday', /^since and until must be days written YYYY-MM-DD \(UTC\)/],
      ['since=2026-11-05&until=2026-11-04', /^since must be a day before or equal to until/],
      ['before=12', /^bad page cursor/],
      ['before=1.2.3', /^bad page cursor/],
      ['event=run.deleted&event=device.revoked', /^a query parameter is given more than once: event/],
    ];
    // The download is not a page: plain text (docs/contract.md section 22 is about pages).
    for (const [query, message] of cases) {
      const { res, body } = await get(h, `/audit.jsonl?${query}`);
      assert.equal(res.status, 400, `/audit.jsonl?${query}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(body, message, `/audit.jsonl?${query}`);
    }
    // The page: the form as sent, the message beside the field at fault; the cursor, the alert alone.
    for (const [query, message] of cases) {
      const { res, body } = await get(h, `/audit?${query}`);
      assert.equal(res.status, 400, `/audit?${query}`);
      assert.match(res.headers.get('content-type') ?? '', /^text\/html/);
      const parameter = query.includes('until=2026-11-04') ? 'until' : (query.split('=')[0] ?? '');
      // A repeated parameter's message does not name it: its field does.
      const text = message.source.replace(/: event$/, '').replace(/^\^/, '');
      if (parameter === 'before') {
        assert.match(body, new RegExp(`<div role="alert">[\\s\\S]*${text}`), query);
        assert.doesNotMatch(body, /aria-invalid/, query);
        continue;
      }
      assert.match(body, new RegExp(`<strong id="audit-${parameter}-error">${text}`), query);
      assert.match(
        body,
        new RegExp(`id="audit-${parameter}"[^>]*aria-invalid="true" aria-describedby="audit-${parameter}-error"`),
        query,
      );
      assert.match(body, new RegExp(`<a href="#audit-${parameter}">`), `${query}: the alert links the field`);
    }
  } finally {
    await h.close();
  }
});

test('GET /audit, /audit.jsonl and /accounts: a signed-in non-admin gets 403, and it is logged and audited', async () => {
  const h = await harness();
  try {
    for (const path of ['/audit', '/audit.jsonl', '/accounts']) {
      const { res, body } = await get(h, path, 'user');
      assert.equal(res.status, 403, path);
      assert.match(body, /administrator/);
    }
    await h.flushAudit();
    const refused = (await h.store.auditPage({ event: 'access.admin_refused' }, { limit: 10 })).items;
    assert.deepEqual(
      refused.map((r) => [r.account, r.detail]),
      [
        [ACCOUNTS.user.subject, 'path=/accounts'],
        [ACCOUNTS.user.subject, 'path=/audit.jsonl'],
        [ACCOUNTS.user.subject, 'path=/audit'],
      ],
    );
  } finally {
    await h.close();
  }
});

test('GET /audit.jsonl: 20,000 records streamed whole, newest first, a batch at a time, filtered like the page', async () => {
  const h = await harness();
  try {
    const total = 20_000;
    for (let i = 0; i < total; i++)
      await h.store.appendAudit(entry(NOV_1 + i * 1000, i % 2 ? 'run.deleted' : 'device.revoked', { run: `r${i}` }));
    // Count what the store has read when the first bytes arrive: a stream, not a buffer.
    const batches = h.store.auditBatches.bind(h.store);
    let read = 0;
    h.store.auditBatches = async function* (filter, size) {
      for await (const batch of batches(filter, size)) {
        read += batch.length;
        yield batch;
      }
    };
    const res = await h.request('/audit.jsonl', { headers: { cookie: h.signIn(ACCOUNTS.admin).cookie } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), `${AUDIT_JSONL_TYPE}; charset=utf-8`);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="audit.jsonl"');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    const first = await reader.read();
    text += decoder.decode(first.value, { stream: true });
    assert.ok(read <= 2 * AUDIT_STREAM_BATCH, `only the first batches are read before the first bytes (${read})`);
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      text += decoder.decode(chunk.value, { stream: true });
    assert.equal(read, total);
    const lines = text.trimEnd().split('\n');
    assert.equal(lines.length, total);
    assert.deepEqual(JSON.parse(lines[0] ?? ''), {
      time: new Date(NOV_1 + (total - 1) * 1000).toISOString(),
      event: 'run.deleted',
      account: 'local:admin',
      client: '192.0.2.1',
      device: null,
      run: `r${total - 1}`,
      detail: '',
    });
    const runs = lines.map((l) => (JSON.parse(l) as { run: string }).run);
    assert.deepEqual(
      runs,
      Array.from({ length: total }, (_, i) => `r${total - 1 - i}`),
    );

    const filtered = await h.request('/audit.jsonl?event=device.revoked&since=2026-11-01&until=2026-11-01', {
      headers: { cookie: h.signIn(ACCOUNTS.admin).cookie },
    });
    const some = (await filtered.text())
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; run: string });
    assert.equal(some.length, total / 2, 'all within the first day (20,000 s is under 6 hours)');
    assert.ok(some.every((r) => r.event === 'device.revoked'));
    assert.equal(some.at(-1)?.run, 'r0');
  } finally {
    await h.close();
  }
});

test('the navigation links the audit trail and the accounts for administrators only', async () => {
  const h = await harness();
  try {
    const admin = (await get(h, '/')).body;
    assert.match(admin, /<nav aria-label="Main">[\s\S]*<a href="\/accounts">Accounts<\/a>[\s\S]*<\/nav>/);
    assert.match(admin, /<nav aria-label="Main">[\s\S]*<a href="\/audit">Audit trail<\/a>[\s\S]*<\/nav>/);
    const user = (await get(h, '/', 'user')).body;
    assert.doesNotMatch(user, /href="\/audit"|href="\/accounts"/);
  } finally {
    await h.close();
  }
});

test('GET /audit: what a device did names the device as its actor, linked, and actor=device:<id> filters on it', async () => {
  const h = await harness();
  try {
    await trail(h);
    await h.store.appendAudit(
      entry(NOV_1 + 5000, 'request.declined', { account: 'device:d7', device: 'd7', detail: 'owner=oidc:ann' }),
    );
    const { res, body } = await get(h, '/audit?actor=device%3Ad7');
    assert.equal(res.status, 200);
    assert.deepEqual(rows(body), ['request.declined d7 d7']);
    assert.match(body, /<td>device <a href="\/devices\/d7"><code>d7<\/code><\/a><\/td>/);
    const jsonl = await get(h, '/audit.jsonl?actor=device%3Ad7');
    assert.equal(jsonl.res.status, 200);
    assert.deepEqual(
      jsonl.body
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { account: string }).account),
      ['device:d7'],
    );
    for (const bad of ['device%3A', 'device%3Aa%2Fb', 'devices%3Ad7'])
      assert.equal((await get(h, `/audit?actor=${bad}`)).res.status, 400, bad);
  } finally {
    await h.close();
  }
});
