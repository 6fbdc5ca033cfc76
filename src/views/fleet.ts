/**
 * The dashboard's first section (docs/contract.md section 22, "the dashboard leads with the
 * fleet"): devices online, seen today, stale, waiting, revoked and held by disabled accounts, open
 * collections and flagged runs, each a number linking to the list it counts.
 */
import { time } from './format.ts';
import { html, type Html } from './html.ts';

export interface FleetView {
  admin: boolean;
  /** From the counters (store.countsVisibleTo); undefined while the store is unreachable. */
  counts: { devices: number; activeDevices: number; runs: number } | undefined;
  /** store.fleetCounts; undefined while the store is unreachable. */
  fleet: { online: number; seenToday: number; stale: number; openCollections: number; flaggedRuns: number } | undefined;
  /** Administrators only. */
  pending?: { count: number; oldest: number | null } | undefined;
  /** Administrators only (docs/contract.md section 19). */
  disabledOwners?: number | undefined;
  /** Where the online devices are listed, and how recently an online device was seen (PADDOCK_ONLINE_WITHIN). */
  online: { href: string; withinMs: number };
  /** After how long a device not seen is stale (PADDOCK_STALE_AFTER). */
  staleAfterMs: number;
  /** When the dashboard's numbers were read, together (console/dashboard_data.ts). */
  takenAt?: number | undefined;
  now: number;
}

const UNITS: Array<[number, string]> = [
  [86_400_000, 'day'],
  [3_600_000, 'hour'],
  [60_000, 'minute'],
  [1000, 'second'],
];

/** A configured length in words: "5 minutes", "30 days", "90 minutes". */
export function lengthInWords(ms: number): string {
  const [unit, name] = UNITS.find(([u]) => ms % u === 0) ?? [1000, 'second'];
  const n = Math.round(ms / unit);
  return `${n} ${name}${n === 1 ? '' : 's'}`;
}

/** A number linked to the list it counts; "unavailable" when it could not be counted. */
function counted(n: number | undefined, href: string): Html | string {
  return n === undefined ? 'unavailable' : html`<a href="${href}">${String(n)}</a>`;
}

/** One row: what is counted, the number, and which ones (or what to do about them). */
function row(name: string, n: Html | string, which: Html | string = ''): Html {
  return html`<tr>
    <th scope="row">${name}</th>
    <td>${n}</td>
    <td>${which}</td>
  </tr>`;
}

function table(caption: string, first: string, rows: Array<Html | string>): Html {
  return html`<table>
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">${first}</th>
        <th scope="col">How many</th>
        <th scope="col">Which</th>
      </tr>
    </thead>
    <tbody>
      ${rows}
    </tbody>
  </table>`;
}

export function fleetSection(v: FleetView): Html {
  const f = v.fleet;
  const c = v.counts;
  const devices = table('Devices', 'State', [
    row(
      'Online',
      counted(f?.online, v.online.href),
      `seen in the last ${lengthInWords(v.online.withinMs)}, neither revoked nor waiting`,
    ),
    row('Seen today', counted(f?.seenToday, '/devices?seen=24h'), 'seen in the last 24 hours'),
    row('Stale', counted(f?.stale, '/devices?status=stale'), `not seen for ${lengthInWords(v.staleAfterMs)} or more`),
    v.pending ? pendingRow(v.pending, v.now) : '',
    row('Revoked', counted(c && c.devices - c.activeDevices, '/devices?status=revoked')),
    v.disabledOwners === undefined
      ? ''
      : row(
          'Held by disabled accounts',
          counted(v.disabledOwners, '/devices?owner_disabled=yes'),
          'hand them over, or revoke them',
        ),
    row('All devices', counted(c?.devices, '/devices'), c ? `${c.activeDevices} not revoked` : ''),
  ]);
  const work = table('Collections and runs', 'What', [
    row('Open collections', counted(f?.openCollections, '/collections?state=open'), 'some devices have yet to answer'),
    row(
      'Flagged runs',
      counted(f?.flaggedRuns, '/runs?flagged=yes'),
      'redacted or minimal runs still holding what their level removes',
    ),
    row('All runs', counted(c?.runs, '/runs')),
  ]);
  return html`<h2>${v.admin ? 'Fleet' : 'Your fleet'}</h2>
    <p>
      ${v.admin ? 'Every device and run.' : 'Your devices and runs, and your groups’.'}
      ${c || f ? countedAt(v.takenAt) : 'Counts are unavailable while the store is unreachable.'}
    </p>
    ${devices} ${work}`;
}

/**
 * When this page's numbers were counted: all of them together (one snapshot, docs/contract.md
 * section 22), so they agree with each other, and a few seconds old at most.
 */
function countedAt(takenAt: number | undefined): Html | string {
  if (takenAt === undefined) return 'Counts may be a few seconds old.';
  const iso = new Date(takenAt).toISOString();
  return html`Counted together at <time datetime="${iso}">${iso.slice(11, 19)} UTC</time>, a few seconds ago at most.`;
}

/** How many devices wait for an administrator's approval, linked to them, and since when the oldest. */
function pendingRow(pending: { count: number; oldest: number | null }, now: number): Html {
  const since = pending.oldest === null ? '' : html`the oldest since ${time(pending.oldest, now)}`;
  return row('Waiting for approval', counted(pending.count, '/devices?status=pending'), since);
}
