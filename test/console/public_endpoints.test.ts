// Rows of the endpoint table with access "none", and the headers every response carries.
import assert from 'node:assert/strict';
import { runScenarios } from '../support/scenario.ts';

const securityHeaders = {
  'content-security-policy': /^default-src 'none'$/,
  'x-content-type-options': /^nosniff$/,
  'x-frame-options': /^DENY$/,
  'referrer-policy': /^no-referrer$/,
};

runScenarios('public endpoints', [
  {
    name: 'GET /healthz answers the health document followed by a newline',
    path: '/healthz',
    status: 200,
    headersMatch: { 'content-type': /^application\/json/, ...securityHeaders },
    after: (_h, _res, body) => {
      assert.equal(body, '{"ok":true,"version":"9.8.7-test"}\n');
    },
  },
  {
    name: 'GET /v1/discover answers control_url and name, and no pin',
    path: '/v1/discover',
    status: 200,
    headersMatch: { 'content-type': /^application\/json/, ...securityHeaders },
    after: (_h, _res, body) => {
      assert.deepEqual(JSON.parse(body), { control_url: 'https://control.example:8443', name: 'Test Paddock' });
    },
  },
  {
    name: 'GET /login is an HTML form with no script, and no OIDC offer without a provider',
    path: '/login',
    status: 200,
    headersMatch: { 'content-type': /^text\/html/, 'cache-control': /no-store/, ...securityHeaders },
    contains: [
      '<!doctype html>',
      '<html lang="en">',
      '<title>',
      'name="username"',
      'name="password"',
      'action="/login"',
    ],
    notContains: ['<script', 'style=', '<style', '/auth/start'],
  },
  {
    name: 'HEAD /healthz is answered like GET without a body',
    method: 'HEAD',
    path: '/healthz',
    status: 200,
    after: (_h, _res, body) => assert.equal(body, ''),
  },
  {
    name: 'an unknown path is a plain-text 404',
    path: '/nope',
    status: 404,
    headersMatch: { 'content-type': /^text\/plain/, ...securityHeaders },
    contains: ['not found'],
  },
  {
    name: 'a known path with a wrong method is 405 with Allow',
    method: 'DELETE',
    path: '/login',
    status: 405,
    headersMatch: { allow: /^GET, POST, HEAD$/, 'content-type': /^text\/plain/, ...securityHeaders },
  },
  {
    name: 'POST /healthz is 405 with Allow GET, HEAD',
    method: 'POST',
    path: '/healthz',
    status: 405,
    headersMatch: { allow: /^GET, HEAD$/ },
  },
  { name: 'GET /logout is 405 with Allow POST', path: '/logout', status: 405, headersMatch: { allow: /^POST$/ } },
  {
    name: 'POST /logout needs no CSRF: clears the session cookie with MaxAge -1 and sends to /login',
    method: 'POST',
    path: '/logout',
    as: 'user',
    status: 303,
    location: /^\/login$/,
    setCookies: [/^service_admin=; Path=\/; Max-Age=-1; HttpOnly; SameSite=Lax$/],
  },
  {
    name: 'POST /logout marks the clearing cookie Secure when configured',
    method: 'POST',
    path: '/logout',
    harness: { config: { secure: true } },
    status: 303,
    setCookies: [/^service_admin=; Path=\/; Max-Age=-1; HttpOnly; Secure; SameSite=Lax$/],
  },
  {
    name: 'POST /logout with a body above the 64 KiB form limit is 413 and signs nobody out',
    method: 'POST',
    path: '/logout',
    as: 'user',
    form: { padding: 'x'.repeat(65_536) },
    status: 413,
    headersMatch: { 'content-type': /^text\/plain/, ...securityHeaders },
    setCookies: [],
  },
  {
    name: 'X-Forwarded-For is not trusted for anything (health still answers normally)',
    path: '/healthz',
    headers: { 'x-forwarded-for': '10.0.0.1' },
    status: 200,
  },
]);
