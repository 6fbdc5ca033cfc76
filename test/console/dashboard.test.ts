// The dashboard leads with the fleet (docs/contract.md section 22): each count a number linking to
// the list it counts, in the viewer's scope; uploads per day by level as an SVG chart with labelled
// axes; client versions as bars; the self-test folded to one line while every check passes, leading
// the page, open, when one fails. On both stores.
import assert from 'node:assert/strict';
import { after } from 'node:test';
import { openPostgresStore } from '../../src/store/postgres/store.ts';
import { enrollDevice, type Harness, upload } from '../support/harness.ts';
import { dropSchemas, freshSchema, PG_URL, postgresAvailable, SKIP_REASON } from '../support/postgres.ts';
import { runScenarios, type Scenario } from '../support/scenario.ts';
import { enrollPending } from '../support/pending_device.ts';

const DAY = 86_400_000;
const admin = { subject: 'local:admin', admin: true };

/**
 * Uma (oidc:user-1): a device silent for 31 days (stale), one seen 2 hours ago, one online that
 * uploaded a flagged redacted run and a full one, one revoked, one waiting; a collection open to her
 * online device. Otto (oidc:user-2, disabled): one online device with a minimal run and facts.
 */
async function fleet(h: Harness) {
  const silent = await enrollDevice(h, 'oidc:user-1', 'silent');
  h.clock.advance(31 * DAY);
  await enrollDevice(h, 'oidc:user-1', 'earlier');
  h.clock.advance(2 * 3_600_000);
  const uma = await enrollDevice(h, 'oidc:user-1', 'uma-laptop');
  const revoked = await enrollDevice(h, 'oidc:user-1', 'lost');
  await h.store.revokeDevice(admin, revoked.device, h.clock.now());
  await enrollPending(h, 'oidc:user-1', 'waiting');
  const otto = await enrollDevice(h, 'oidc:user-2', 'otto-phone');
  assert.equal((await upload(h, uma.credential, 'run-1', 'hello', 'redacted')).status, 201);
  assert.equal((await upload(h, uma.credential, 'run-2', 'hello', 'full')).status, 201);
  assert.equal((await upload(h, otto.credential, 'run-3', 'hello', 'minimal')).status, 201);
  // The level check's own findings first, then these: run-1 flagged, run-3 not.
  await h.levelCheck.idle();
  assert.ok(await h.store.recordLevelCheck(uma.device, 'run-1', { email: 1 }));
  assert.ok(await h.store.recordLevelCheck(otto.device, 'run-3', {}));
  await h.store.reportFacts(uma.device, { client_version: '1.4.0' }, h.clock.now());
  await h.store.reportFacts(otto.device, { client_version: '1.4.0' }, h.clock.now());
  await h.store.reportFacts(silent.device, { client_version: '1.3.0' }, h.clock.now());
  await h.store.createCollection(
    admin,
    {
      id: 'c_test000000000001',
      createdBy: admin.subject,
      createdAt: h.clock.now(),
      privacy: 'redacted',
      reason: 'firmware',
      expiresAt: h.clock.now() + DAY,
    },
    { devices: [uma.device] },
  );
  const now = h.clock.now();
  await h.store.recordSignIn({ subject: 'oidc:user-2', display: 'Otto', lastSignInAt: now, admin: false });
  assert.ok(await h.store.setAccountDisabled('oidc:user-2', now));
}

/** A row of a fleet table: its name, its number linked to `href` (escaped as an attribute). */
const row = (name: string, href: string, n: number) =>
  new RegExp(
    `<th scope="row">${name}</th>\\s*<td><a href="${href.replaceAll('&', '&amp;').replaceAll('?', '\\?')}">${n}</a></td>`,
  );

const failing = {
  selfTest: {
    run: async () => [
      { name: 'store read/write', ok: false, detail: 'SQLITE_IOERR' },
      { name: 'control certificate', ok: true, detail: 'pin sha256/AAAA; expires in 80 days' },
    ],
  },
};

const scenarios: Scenario[] = [
  {
    name: 'an administrator’s dashboard leads with the fleet: each count links to the list it counts',
    path: '/',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      /<h1>Dashboard<\/h1>\s*<h2>Fleet<\/h2>/,
      /Counted together at <time datetime="[0-9T:.-]+Z">[0-9]{2}:[0-9]{2}:[0-9]{2} UTC<\/time>, a few seconds ago at most\./,
      row('Online', '/devices?seen=5m&status=active', 2),
      row('Seen today', '/devices?seen=24h', 5),
      row('Stale', '/devices?status=stale', 1),
      row('Waiting for approval', '/devices?status=pending', 1),
      row('Revoked', '/devices?status=revoked', 1),
      row('Held by disabled accounts', '/devices?owner_disabled=yes', 1),
      row('All devices', '/devices', 6),
      row('Open collections', '/collections?state=open', 1),
      row('Flagged runs', '/runs?flagged=yes', 1),
      row('All runs', '/runs', 3),
      'not seen for 30 days or more',
    ],
  },
  {
    name: 'an account’s dashboard counts its own devices, collections and runs, and not what administrators decide',
    path: '/',
    as: 'user',
    setup: fleet,
    status: 200,
    contains: [
      /<h1>Dashboard<\/h1>\s*<h2>Your fleet<\/h2>/,
      row('Online', '/devices?seen=5m&status=active', 1),
      row('Seen today', '/devices?seen=24h', 4),
      row('Stale', '/devices?status=stale', 1),
      row('Revoked', '/devices?status=revoked', 1),
      row('All devices', '/devices', 5),
      row('Open collections', '/collections?state=open', 0),
      row('Flagged runs', '/runs?flagged=yes', 1),
      row('All runs', '/runs', 2),
    ],
    notContains: ['Waiting for approval', 'Held by disabled accounts', 'Client versions'],
  },
  {
    name: 'uploads per day by level: an SVG chart with labelled axes, a legend, its summary as its name, and a table',
    path: '/',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      '<h2>Uploads per day</h2>',
      /<svg viewBox="0 0 \d+ \d+" width="\d+" height="\d+" role="img" aria-label="Uploads per day by privacy level, 2026-12-10 to 2026-12-23 \(UTC\): 3 uploads \(1 full, 1 redacted, 1 minimal\), 3 today; the most on 2026-12-23 \(3\)">/,
      // The axes: the y axis's label and ticks, the x axis's label and each day under its bar.
      /transform="rotate\(-90 [\d.]+ [\d.]+\)">Uploads<\/text>/,
      /text-anchor="end">0<\/text>[\s\S]*text-anchor="end">3<\/text>/,
      />Day \(UTC, month-day\)<\/text>/,
      /text-anchor="middle">12-10<\/text>[\s\S]*text-anchor="middle">12-23<\/text>/,
      // The legend, a swatch and a name a level.
      /fill="#7a1f1f" \/><text [^>]+>full<\/text>[\s\S]*>redacted<\/text>[\s\S]*>minimal<\/text>/,
      '<title>2026-12-23: 1 redacted upload</title>',
      /<details>\s*<summary>The uploads per day as a table<\/summary>/,
      /<th scope="row"><time datetime="2026-12-23">2026-12-23<\/time><\/th>\s*<td>1<\/td><td>1<\/td><td>1<\/td>\s*<td>3<\/td>/,
    ],
  },
  {
    name: 'client versions as bars: a meter each against the most common, with its count and its list',
    path: '/',
    as: 'admin',
    setup: fleet,
    status: 200,
    contains: [
      '<h2>Client versions</h2>',
      /<a href="\/devices\?fact=client_version%3D1\.4\.0">1\.4\.0<\/a>\s*<meter min="0" max="2" value="2" aria-label="1\.4\.0: 2 devices">2 devices<\/meter>\s*2 devices/,
      /<a href="\/devices\?fact=client_version%3D1\.3\.0">1\.3\.0<\/a>\s*<meter min="0" max="2" value="1" aria-label="1\.3\.0: 1 device">1 device<\/meter>/,
    ],
    notContains: ['<th scope="col">Client version</th>'],
  },
  {
    name: 'while every check passes the self-test is one folded line after the fleet, its table inside',
    path: '/',
    as: 'admin',
    status: 200,
    contains: [
      /<h2>Fleet<\/h2>[\s\S]*<h2>This server<\/h2>\s*<p>Paddock version <strong>9\.8\.7-test<\/strong>\.<\/p>\s*<details>\s*<summary>Self-test: All 2 checks passed\.<\/summary>[\s\S]*<caption>\s*Self-test checks\s*<\/caption>[\s\S]*<\/table>\s*<\/details>/,
    ],
    notContains: ['<details open', 'checks failed'],
  },
  {
    name: 'a check that needs attention soon is named on the folded line',
    path: '/',
    as: 'user',
    harness: {
      selfTest: { run: async () => [{ name: 'control certificate', ok: true, warning: true, detail: 'pin p' }] },
    },
    status: 200,
    contains: ['<summary>Self-test: All 1 check passed; needs attention soon: control certificate.</summary>'],
  },
  {
    name: 'a failing check leads the page: the self-test open before the fleet, with the certificate pin for an administrator',
    path: '/',
    as: 'admin',
    harness: failing,
    status: 200,
    contains: [
      /<h1>Dashboard<\/h1>\s*<h2>Self-test: 1 of 2 checks failed<\/h2>\s*<table>[\s\S]*<td>FAILED<\/td>\s*<td>SQLITE_IOERR<\/td>[\s\S]*pin sha256\/AAAA[\s\S]*<\/table>\s*<p>Paddock version[\s\S]*<h2>Fleet<\/h2>/,
    ],
    notContains: ['<summary>Self-test', '<h2>This server</h2>'],
  },
  {
    name: 'the numbers say unavailable, and the page still answers, when the store cannot count',
    path: '/',
    as: 'admin',
    setup: async (h) => {
      h.store.fleetCounts = () => Promise.reject(new Error('store: unavailable'));
      h.store.countsVisibleTo = () => Promise.reject(new Error('store: unavailable'));
      h.store.uploadsByLevel = () => Promise.reject(new Error('store: unavailable'));
    },
    status: 200,
    contains: [
      'Counts are unavailable while the store is unreachable.',
      /<th scope="row">Online<\/th>\s*<td>unavailable<\/td>/,
      /<th scope="row">All runs<\/th>\s*<td>unavailable<\/td>/,
    ],
    notContains: ['<h2>Uploads per day</h2>'],
  },
];

runScenarios('dashboard', scenarios);
const available = await postgresAvailable();
after(() => (available ? dropSchemas() : undefined));
runScenarios('dashboard', scenarios, {
  name: 'postgres',
  open: () => openPostgresStore(PG_URL, { schema: freshSchema() }),
  skip: !available && SKIP_REASON,
});
