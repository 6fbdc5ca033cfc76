// The guarded pages: dashboard, device list, run list and run view, each scoped to the account.
import assert from 'node:assert/strict';
import { enrollDevice, upload, type Harness } from '../support/harness.ts';
import { runScenarios } from '../support/scenario.ts';

/** Two accounts with one device and one run each. */
async function twoOwners(h: Harness) {
  const mine = await enrollDevice(h, 'oidc:user-1', 'uma-laptop');
  const theirs = await enrollDevice(h, 'oidc:user-2', 'otto-phone');
  assert.equal((await upload(h, mine.credential, 'run-mine', 'hello <b>mine</b>', 'redacted')).status, 201);
  assert.equal((await upload(h, theirs.credential, 'run-theirs', 'secret of otto', 'full')).status, 201);
  return { mine: mine.device, theirs: theirs.device };
}

const page = {
  'content-type': /^text\/html/,
  'cache-control': /^no-store$/,
  'content-security-policy': /^default-src 'none'$/,
};
const wellFormed = [
  '<!doctype html>',
  '<html lang="en">',
  '<title>',
  'action="/logout"',
  'Sign out',
  'href="/devices"',
  'href="/runs"',
];
const noScript = ['<script', 'style=', '<style', 'http://', 'https://'];

/** The store's probe fails with an error text that names a path (the self-test shows it). */
async function failingProbe(h: Harness) {
  h.store.probe = async () => {
    throw new Error('SQLITE_IOERR at /srv/paddock/data/paddock.db');
  };
}

runScenarios('pages', [
  {
    name: 'the dashboard shows the fleet first, the uploads chart, and the version with each self-test check and its outcome',
    path: '/',
    as: 'admin',
    setup: twoOwners,
    status: 200,
    headersMatch: page,
    contains: [
      ...wellFormed,
      '9.8.7-test',
      'store read/write',
      'session keys',
      'passed',
      /<th scope="row">All devices<\/th>\s*<td><a href="\/devices">2<\/a><\/td>/,
      /<th scope="row">All runs<\/th>\s*<td><a href="\/runs">2<\/a><\/td>/,
      '<h2>Uploads per day</h2>',
      /<svg viewBox="[^"]+" width="\d+" height="\d+" role="img" aria-label="Uploads per day by privacy level, 2026-11-09 to 2026-11-22 \(UTC\): 2 uploads \(1 full, 1 redacted, 0 minimal\), 2 today; the most on 2026-11-22 \(2\)">/,
      /<figcaption>Uploads per day by privacy level, 2026-11-09 to 2026-11-22 \(UTC\): 2 uploads \(1 full, 1 redacted, 0 minimal\), 2 today; the most on 2026-11-22 \(2\)\.<\/figcaption>/,
    ],
    notContains: noScript,
  },
  {
    name: 'a non-admin dashboard counts only its own',
    path: '/',
    as: 'user',
    setup: twoOwners,
    status: 200,
    contains: [
      /<th scope="row">All devices<\/th>\s*<td><a href="\/devices">1<\/a><\/td>/,
      /<th scope="row">All runs<\/th>\s*<td><a href="\/runs">1<\/a><\/td>/,
    ],
  },
  {
    name: 'the self-test details (paths, error texts, pins) are shown to admins only; others see each outcome',
    path: '/',
    as: 'user',
    setup: failingProbe,
    status: 200,
    contains: [
      'store read/write',
      '<td>FAILED</td>',
      'session keys',
      'What each check found is shown to administrators.',
    ],
    notContains: ['/srv/paddock', 'SQLITE_IOERR', 'key(s) of at least 32 bytes'],
  },
  {
    name: 'a check that needs attention soon shows as a warning to a non-admin, without its details',
    path: '/',
    as: 'user',
    harness: {
      selfTest: {
        run: async () => [
          { name: 'control certificate', ok: true, warning: true, detail: 'pin sha256/AAAA; expires soon' },
        ],
      },
    },
    status: 200,
    contains: ['control certificate', '<td>warning</td>'],
    notContains: ['sha256/AAAA'],
  },
  {
    name: 'an admin sees what each check found',
    path: '/',
    as: 'admin',
    setup: failingProbe,
    status: 200,
    contains: ['SQLITE_IOERR at /srv/paddock/data/paddock.db', 'key(s) of at least 32 bytes'],
  },
  {
    name: 'an admin sees every device, revoke buttons, the bulk form and the way to enroll',
    path: '/devices',
    as: 'admin',
    setup: twoOwners,
    status: 200,
    headersMatch: page,
    contains: [
      ...wellFormed,
      'uma-laptop',
      'otto-phone',
      'oidc:user-1',
      'oidc:user-2',
      '/revoke?return=',
      'href="/enroll-tokens"',
      'action="/devices/bulk/confirm"',
      'form="bulk-devices" name="device"',
      'name="csrf"',
    ],
    notContains: noScript,
  },
  {
    name: 'a non-admin sees only its own devices, and no revoke or mint',
    path: '/devices',
    as: 'user',
    setup: twoOwners,
    status: 200,
    contains: ['uma-laptop'],
    notContains: [
      'otto-phone',
      '/revoke"',
      'action="/enroll-tokens"',
      'href="/enroll-tokens"',
      'action="/devices/bulk"',
    ],
  },
  {
    name: 'the run list: run, device by name, uploaded, privacy level, size, the bulk form first, no button a row',
    path: '/runs',
    as: 'admin',
    setup: twoOwners,
    status: 200,
    headersMatch: page,
    contains: [
      ...wellFormed,
      'run-mine',
      'run-theirs',
      'redacted',
      '17 B',
      '<time datetime="',
      /Runs 1–2 of 2 \(counted within the last few seconds\)/,
      // The bulk form posts to its confirmation first (docs/contract.md section 22), with the list as return.
      /<form method="post" action="\/runs\/bulk\/confirm" id="bulk-runs">[\s\S]*name="return" value="\/runs"[\s\S]*<table>/,
      /<a href="\/devices\/[^"]+">[^<]+<\/a> <small><code>/,
    ],
    notContains: [...noScript, '/delete"'],
  },
  {
    name: 'a non-admin lists only its own runs',
    path: '/runs',
    as: 'user',
    setup: twoOwners,
    status: 200,
    contains: ['run-mine'],
    notContains: ['run-theirs'],
  },
  { name: 'a malformed page cursor → 400', path: '/runs?before=abc', as: 'admin', status: 400 },
  { name: 'a repeated page cursor → 400', path: '/devices?before=1&before=2', as: 'admin', status: 400 },
  {
    name: 'the run view shows the content exactly as uploaded, escaped, with its level and the sentence on redaction',
    path: (_h, f) => `/runs/${f.mine}/run-mine`,
    as: 'user',
    setup: twoOwners,
    status: 200,
    headersMatch: page,
    contains: [
      ...wellFormed,
      '<pre>\n<a id="L1" href="#L1">1</a>  hello &lt;b&gt;mine&lt;/b&gt;</pre>',
      'redacted',
      'cannot be restored',
      'text/plain',
      '17 bytes',
    ],
    notContains: ['<b>mine</b>', ...noScript],
  },
  {
    name: 'a run of another account answers 404, exactly like a missing one',
    path: (_h, f) => `/runs/${f.theirs}/run-theirs`,
    as: 'user',
    setup: twoOwners,
    status: 404,
    headersMatch: { 'content-type': /^text\/plain/ },
    contains: ['run not found'],
    notContains: ['secret of otto'],
  },
  {
    name: 'a missing run answers 404',
    path: '/runs/d_nothing/run-x',
    as: 'admin',
    status: 404,
    contains: ['run not found'],
  },
  {
    name: 'a run id outside the grammar answers 404',
    path: '/runs/d_x/%3Cscript%3E',
    as: 'admin',
    status: 404,
    notContains: ['<script'],
  },
]);

runScenarios('run view text', [
  {
    name: 'controls show as symbols, never raw, in a numbered line',
    path: (_h, f) => `/runs/${f.device}/controls`,
    as: 'admin',
    setup: async (h) => {
      const { device, credential } = await enrollDevice(h, 'oidc:user-1');
      assert.equal((await upload(h, credential, 'controls', 'café\0\x07<b>\n')).status, 201);
      return { device };
    },
    status: 200,
    contains: ['<pre>\n<a id="L1" href="#L1">1</a>  café␀␇&lt;b&gt;\n</pre>', 'Shown as UTF-8 text'],
    notContains: [/[\0\x07]/],
  },
  {
    name: 'bytes that are not UTF-8 make a binary run, whatever the charset of its content type: shown as hex',
    path: (_h, f) => `/runs/${f.device}/latin1`,
    as: 'admin',
    setup: async (h) => {
      const { device, credential } = await enrollDevice(h, 'oidc:user-1');
      const bytes = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x00, 0x07, 0x3c, 0x62, 0x3e, 0x0a]);
      assert.equal(
        (await upload(h, credential, 'latin1', bytes, 'full', 'text/plain; charset=ISO-8859-1')).status,
        201,
      );
      return { device };
    },
    status: 200,
    contains: [
      '<pre>\n00000000  63 61 66 e9 00 07 3c 62  3e 0a' + ' '.repeat(20) + '|caf...&lt;b&gt;.|\n</pre>',
      'not UTF-8 text',
    ],
    notContains: [/[\0\x07]/, 'id="L1"'],
  },
  {
    name: 'a run that begins with line feeds keeps them, as empty numbered lines',
    path: (_h, f) => `/runs/${f.device}/leading-lf`,
    as: 'admin',
    setup: async (h) => {
      const { device, credential } = await enrollDevice(h, 'oidc:user-1');
      assert.equal((await upload(h, credential, 'leading-lf', '\n\nfirst line')).status, 201);
      return { device };
    },
    status: 200,
    contains: [
      '<pre>\n<a id="L1" href="#L1">1</a>  \n<a id="L2" href="#L2">2</a>  \n<a id="L3" href="#L3">3</a>  first line</pre>',
    ],
  },
]);

runScenarios('run view pages', [
  {
    name: 'a large run is paged exactly, escaped, with a multi-byte character across a chunk boundary intact',
    path: (_h, f) => `/runs/${f.device}/big?line=1&part=2`,
    as: 'admin',
    setup: async (h) => {
      const { device, credential } = await enrollDevice(h, 'oidc:user-1');
      // 262,143 ASCII bytes put the 3-byte "€" across the 256 KiB chunk boundary (and the page's).
      const body = `${'a'.repeat(262_143)}€<tag>&${'z'.repeat(200_000)}`;
      assert.equal((await upload(h, credential, 'big', body)).status, 201);
      return { device };
    },
    status: 200,
    headersMatch: { 'content-type': /^text\/html/, 'content-security-policy': /^default-src 'none'$/ },
    after: (_h, _res, body) => {
      const pre = /<pre>([\s\S]*)<\/pre>/.exec(body)?.[1] ?? '';
      assert.equal(pre, `\n<a id="L1" href="#L1">1</a>  €&lt;tag&gt;&amp;${'z'.repeat(200_000)}`);
      assert.match(body, /<\/html>\s*$/);
    },
  },
]);
