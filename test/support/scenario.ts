/**
 * HTTP scenario tables: each row is one request on a fresh harness and what must come back
 * (status, headers, cookies, body must and must-not contain, log records, the events emitted).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EventName } from '../../src/events/catalogue.ts';
import type { Store } from '../../src/store/store.ts';
import { type Harness, type HarnessOptions, harness } from './harness.ts';

export type Who = 'nobody' | 'admin' | 'user' | 'other';

export const ACCOUNTS = {
  admin: { subject: 'local:admin', display: 'admin', admin: true },
  user: { subject: 'oidc:user-1', display: 'Uma User', admin: false },
  other: { subject: 'oidc:user-2', display: 'Otto Other', admin: false },
} as const;

export interface Scenario {
  name: string;
  method?: string;
  path: string | ((h: Harness, fixture: Record<string, string>) => string);
  as?: Who;
  /**
   * Form fields (a list: the field repeated); `'$csrf'` is replaced by the session's token,
   * `'$fixture.x'` by the fixture's x.
   */
  form?: Record<string, string | string[]>;
  body?: string;
  headers?: Record<string, string>;
  client?: string;
  harness?: HarnessOptions;
  /** Prepares data; what it returns is available to `path` and checks as `fixture`. */
  setup?: (h: Harness) => Promise<Record<string, string> | void>;
  /** Runs after the session is minted, just before the request (to let time pass, say). */
  beforeRequest?: (h: Harness) => Promise<void> | void;
  status: number;
  location?: string | RegExp;
  headersMatch?: Record<string, string | RegExp | null>;
  contains?: Array<string | RegExp>;
  notContains?: Array<string | RegExp>;
  /** Every Set-Cookie line must match one of these, in order. */
  setCookies?: Array<string | RegExp>;
  logs?: Array<Record<string, unknown>>;
  /**
   * Exactly the events the request emits, in order (PocketBase's ExpectedEvents): one more or one
   * less fails. `[]` says it emits none.
   */
  events?: EventName[];
  /** Further checks after the request. */
  after?: (h: Harness, res: Response, body: string, fixture: Record<string, string>) => Promise<void> | void;
}

/**
 * Runs each scenario on a fresh harness: on an in-memory SQLite store, or on the store `backend`
 * opens (fresh for each scenario; skipped with its reason when it is not available).
 */
export function runScenarios(
  title: string,
  scenarios: Scenario[],
  backend?: { name: string; open: () => Promise<Store>; skip?: string | false },
): void {
  for (const s of scenarios) {
    const name = backend ? `${title} (${backend.name}): ${s.name}` : `${title}: ${s.name}`;
    test(name, { skip: backend?.skip ?? false }, async () => {
      const h = await harness(backend ? { ...s.harness, store: await backend.open() } : s.harness);
      try {
        const fixture = (await s.setup?.(h)) ?? {};
        const headers: Record<string, string> = { ...s.headers };
        let csrf = '';
        if (s.as && s.as !== 'nobody') {
          const signed = h.signIn(ACCOUNTS[s.as]);
          headers.cookie = [headers.cookie, signed.cookie].filter(Boolean).join('; ');
          csrf = signed.csrf;
        }
        let body: string | undefined = s.body;
        if (s.form) {
          headers['content-type'] ??= 'application/x-www-form-urlencoded';
          const value = (v: string) =>
            v === '$csrf' ? csrf : v.startsWith('$fixture.') ? (fixture[v.slice(9)] ?? '') : v;
          const fields = Object.entries(s.form).flatMap(([k, v]) =>
            (typeof v === 'string' ? [v] : v).map((one): [string, string] => [k, value(one)]),
          );
          body = new URLSearchParams(fields).toString();
        }
        await s.beforeRequest?.(h);
        const path = typeof s.path === 'function' ? s.path(h, fixture) : s.path;
        const heard = h.logs.length;
        const res = await h.request(path, { method: s.method ?? 'GET', headers, body }, s.client);
        const text = await res.text();
        if (s.events !== undefined) assertEvents(h, heard, s.events);
        assert.equal(res.status, s.status, `status of ${s.method ?? 'GET'} ${path}; body: ${text.slice(0, 300)}`);
        if (s.location !== undefined) assertMatch(res.headers.get('location') ?? '', s.location, 'Location');
        for (const [name, want] of Object.entries(s.headersMatch ?? {})) {
          if (want === null) assert.equal(res.headers.get(name), null, `header ${name} must be absent`);
          else assertMatch(res.headers.get(name) ?? '', want, `header ${name}`);
        }
        for (const want of s.contains ?? []) assertMatch(text, want, 'body');
        for (const unwanted of s.notContains ?? []) {
          if (typeof unwanted === 'string') assert.ok(!text.includes(unwanted), `body must not contain ${unwanted}`);
          else assert.doesNotMatch(text, unwanted);
        }
        if (s.setCookies) {
          const cookies = res.headers.getSetCookie();
          assert.equal(cookies.length, s.setCookies.length, `Set-Cookie lines: ${JSON.stringify(cookies)}`);
          s.setCookies.forEach((want, i) => assertMatch(cookies[i] ?? '', want, 'Set-Cookie'));
        }
        for (const want of s.logs ?? []) {
          assert.ok(
            h.logs.some((r) => Object.entries(want).every(([k, v]) => r[k] === v)),
            `no log record like ${JSON.stringify(want)} in ${JSON.stringify(h.logs)}`,
          );
        }
        await s.after?.(h, res, text, fixture);
      } finally {
        await h.close();
      }
    });
  }
}

/** The events emitted since the log held `from` records are exactly `want`, in order. */
export function assertEvents(h: Harness, from: number, want: readonly string[]): void {
  assert.deepEqual(
    h.logs.slice(from).map((r) => r.event),
    want,
    `the events emitted: ${JSON.stringify(h.logs.slice(from))}`,
  );
}

export function assertMatch(actual: string, want: string | RegExp, what: string): void {
  if (typeof want === 'string')
    assert.ok(
      actual.includes(want),
      `${what} must contain ${JSON.stringify(want)}, got ${JSON.stringify(actual.slice(0, 500))}`,
    );
  else assert.match(actual, want, what);
}
