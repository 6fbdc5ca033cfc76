// The guard: session (303 to /login), then CSRF (403), then admin (403, logged), in that order.
import assert from 'node:assert/strict';
import { runScenarios, type Scenario } from '../support/scenario.ts';

const guardedGets = ['/', '/devices', '/runs', '/runs/d_abc/run-1'];
const posts = ['/runs/d_abc/run-1/delete', '/devices/d_abc/revoke', '/enroll-tokens'];

const rows: Scenario[] = [
  ...[...guardedGets].map((path): Scenario => ({
    name: `GET ${path} without a session → 303 /login`,
    path,
    status: 303,
    location: /^\/login$/,
  })),
  ...posts.map((path): Scenario => ({
    name: `POST ${path} without a session → 303 /login`,
    method: 'POST',
    path,
    form: { csrf: 'x' },
    status: 303,
    location: /^\/login$/,
  })),
  ...guardedGets.slice(0, 3).map((path): Scenario => ({
    name: `GET ${path} with a tampered cookie → 303 /login`,
    path,
    headers: { cookie: 'service_admin=eyJ4IjoxfQ.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    status: 303,
    location: /^\/login$/,
  })),
  {
    name: 'GET / with a garbage cookie header → 303 /login, no 500',
    path: '/',
    headers: { cookie: 'service_admin=%%%; =; ;;; service_admin' },
    status: 303,
  },
  {
    name: 'an expired session → 303 /login',
    path: '/',
    as: 'admin',
    beforeRequest: (h) => h.clock.advance(43_200_000),
    status: 303,
    location: /^\/login$/,
  },
  ...posts.map((path): Scenario => ({
    name: `POST ${path} by an admin with a wrong csrf → 403`,
    method: 'POST',
    path,
    as: 'admin',
    form: { csrf: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' },
    status: 403,
    contains: ['stale form'],
    headersMatch: { 'content-type': /^text\/plain/ },
  })),
  ...posts.map((path): Scenario => ({
    name: `POST ${path} by an admin with no csrf field → 403`,
    method: 'POST',
    path,
    as: 'admin',
    form: {},
    status: 403,
    contains: ['stale form'],
  })),
  {
    name: 'an unparseable form on a guarded route → 403',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'csrf=%zz',
    status: 403,
    contains: ['stale form'],
  },
  {
    name: 'a guarded post of another media type → 403',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    headers: { 'content-type': 'application/json' },
    body: '{"csrf":"x"}',
    status: 403,
  },
  {
    name: 'a guarded form above 64 KiB → 413',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    form: { csrf: '$csrf', owner: 'x'.repeat(70_000) },
    status: 413,
  },
  {
    name: 'CSRF runs before the admin check: a non-admin with a wrong csrf gets the CSRF 403 and no admin log',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'user',
    form: { csrf: 'wrong' },
    status: 403,
    contains: ['stale form'],
    after: (h) => assert.equal(h.logs.filter((r) => r.event === 'access.admin_refused').length, 0),
  },
  {
    name: 'a CSRF token of another session is refused',
    method: 'POST',
    path: '/enroll-tokens',
    as: 'admin',
    setup: async (h) => ({ csrf: h.signIn({ subject: 'local:admin', admin: true }).csrf }),
    form: { csrf: '$fixture.csrf' },
    status: 403,
  },
  ...['/devices/d_abc/revoke', '/enroll-tokens'].map((path): Scenario => ({
    name: `POST ${path} by a non-admin with a valid csrf → 403, logged with account and path`,
    method: 'POST',
    path,
    as: 'user',
    form: { csrf: '$csrf' },
    status: 403,
    contains: ['administrator'],
    logs: [{ event: 'access.admin_refused', account: 'oidc:user-1', path }],
  })),
];

runScenarios('guard', rows);
