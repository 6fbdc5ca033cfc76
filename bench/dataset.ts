/**
 * Builds the benchmark dataset through the store interface: devices spread over accounts, each
 * with five labels, about 1 KiB runs spread over devices, plus an 8 KiB and a 16 MiB run to view.
 */
import { createHash, randomBytes } from 'node:crypto';
import { secretHash } from '../src/crypto/random.ts';
import { newAccessToken } from '../src/domain/access_tokens.ts';
import type { DatabaseSync } from 'node:sqlite';
import type { Store } from '../src/store/store.ts';

export interface DatasetSize {
  devices: number;
  accounts: number;
  runs: number;
}

export interface Dataset {
  owner: string;
  /** An account in GROUPS_PER_ACCOUNT groups (docs/contract.md section 19). */
  member: string;
  /** An account without groups that owns about as many devices as the member reaches. */
  fleetOwner: string;
  ownerDevice: string;
  smallRun: { device: string; id: string };
  largeRun: { device: string; id: string };
  uploadOwner: string;
  uploadCredentials: string[];
  /** A day in the middle of the runs' upload times (ms), for the day-range filter. */
  runsMidDay: number;
}

/**
 * Five labels a device (docs/contract.md section 12): fleet=main on every device (the common
 * label), site, line and rack on a tenth, a hundredth and a thousandth of them (rack=r7 is the
 * rare label of the bench rows), and a serial of its own.
 */
export function benchLabels(i: number): Record<string, string> {
  return { fleet: 'main', site: `s${i % 10}`, line: `l${i % 100}`, rack: `r${i % 1000}`, serial: `n${i}` };
}
export const COMMON_LABEL = 'fleet=main';
export const RARE_LABEL = 'rack=r7';

/**
 * Five facts a device, as the reference client reports them (docs/contract.md section 16): arch=x64
 * on every device (the common fact), os on a third, client_version on a tenth, os_version on a
 * fiftieth, and a hostname of its own (hostname=host-7 is the rare fact of the bench rows).
 */
export function benchFacts(i: number): Record<string, string> {
  return {
    arch: 'x64',
    os: ['linux', 'darwin', 'win32'][i % 3] ?? 'linux',
    client_version: `1.${i % 10}.0`,
    os_version: `6.${i % 50}`,
    hostname: `host-${i}`,
  };
}
export const COMMON_FACT = 'arch=x64';

/**
 * The device list's other filters, each measured against the plain list with its count
 * (docs/contract.md section 22): a status most devices hold and one few do, a search (a rare text,
 * one every device holds, and one whose matches are the oldest devices), windows of
 * last seen that hold no device and every device, silent devices, and the silent longest first.
 */
export const DEVICE_FILTERS: ReadonlyArray<readonly [string, string]> = [
  ['status, most', 'status=active'],
  ['status, few', 'status=revoked'],
  ['search', 'q=device+123'],
  ['search, every device', 'q=bench'],
  ['search, old matches', 'q=device+1'],
  ['seen, none', 'seen=5m'],
  ['seen, all', 'seen=7d'],
  ['not seen, all', 'seen=not:24h'],
  ['silent longest first', 'sort=last_seen_oldest'],
];
export const RARE_FACT = 'hostname=host-7';

/** Runs are spread over time, one every 5 s, so that a day holds 17,280 of them. */
export const RUN_EVERY_MS = 5_000;

/** Every 50th device is revoked; privacy levels take turns, so each filter selects a real share. */
export const LEVELS = ['full', 'redacted', 'minimal'] as const;

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** Text that looks like a run log, so escaping does real work. */
function runText(bytes: number, seed: number): Uint8Array {
  const line = `t=${seed} temperature=21.${seed % 10} status=<ok> & note="bench"\n`;
  return new TextEncoder().encode(line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes));
}

/**
 * An administrator's personal access token for the API rows (docs/contract.md section 11), valid a day.
 * A token acts with its account's rights as its latest sign-in set them (section 14): the account signs in.
 */
export async function adminApiToken(store: Store): Promise<string> {
  await store.recordSignIn({ subject: 'local:admin', display: 'admin', lastSignInAt: Date.now(), admin: true });
  const token = newAccessToken();
  await store.createAccessToken({
    hash: secretHash(token),
    subject: 'local:admin',
    admin: true,
    scope: 'write',
    name: 'bench',
    createdAt: Date.now(),
    expiresAt: Date.now() + 86_400_000,
  });
  return token;
}

/** One device in eleven belongs to a group (about as many as an account's), the others to accounts in turn. */
export const GROUP_EVERY = 11;
export const GROUPS_PER_ACCOUNT = 20;

/** The number of groups: a tenth of the accounts (1,000 at 10,000 accounts), at least GROUPS_PER_ACCOUNT. */
export function groupCount(size: DatasetSize): number {
  return Math.max(GROUPS_PER_ACCOUNT, Math.floor(size.accounts / 10));
}

/**
 * One device in FLEET_EVERY belongs to one account of its own, which so reaches about as many
 * devices and runs as a member of GROUPS_PER_ACCOUNT groups: the member's pages are measured
 * against its, the same rows on each, so that the ratio is what the groups cost.
 */
export const FLEET_EVERY = 500;
export const FLEET_OWNER = 'oidc:fleet-owner';

/** Device i's owner: the fleet owner, an account, or one in GROUP_EVERY a group. */
export function benchOwner(i: number, size: DatasetSize): string {
  if (i % FLEET_EVERY === FLEET_EVERY / 2) return FLEET_OWNER;
  return i % GROUP_EVERY === GROUP_EVERY - 1
    ? `group:team-${Math.floor(i / GROUP_EVERY) % groupCount(size)}`
    : `oidc:account-${i % size.accounts}`;
}

/** Account a's groups: GROUPS_PER_ACCOUNT of them, spread so that each group has members. */
export function accountGroups(a: number, size: DatasetSize): string[] {
  const groups = groupCount(size);
  return Array.from(
    { length: GROUPS_PER_ACCOUNT },
    (_, j) => `team-${(a + j * Math.floor(groups / GROUPS_PER_ACCOUNT)) % groups}`,
  );
}

export async function buildDataset(
  store: Store,
  size: DatasetSize,
  progress: (line: string) => void,
): Promise<Dataset> {
  const now = Date.now() - 86_400_000;
  const runsFrom = now - size.runs * RUN_EVERY_MS;
  const deviceIds: string[] = [];
  for (let i = 0; i < size.devices; i++) {
    const owner = benchOwner(i, size);
    const id = `d_bench${i}`;
    await store.createEnrollToken({
      hash: `bench-token-${i}`,
      owner,
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 1e12,
      // Enrollment copies the token's labels to the device, as it does for a provisioned line.
      labels: benchLabels(i),
    });
    await store.enrollDevice({
      tokenHash: `bench-token-${i}`,
      now: now + i,
      deviceId: id,
      name: `bench device ${i}`,
      credentialHash: `bench-cred-${i}`,
      facts: benchFacts(i),
    });
    deviceIds.push(id);
  }
  progress(`${size.devices} devices`);
  // Every account but the owner measured as before groups (account-0) in GROUPS_PER_ACCOUNT groups
  // (docs/contract.md section 19), as its sign-in records them.
  for (let a = 1; a < size.accounts; a++) await store.setAccountGroups(`oidc:account-${a}`, accountGroups(a, size));
  progress(`${size.accounts} accounts in ${GROUPS_PER_ACCOUNT} groups each`);
  const body = runText(1000, 7);
  const hash = sha(body);
  // Written in groups of concurrent uploads, as devices send them, so the store commits a group at once.
  const GROUP = 500;
  for (let start = 0; start < size.runs; start += GROUP) {
    const group: Array<Promise<unknown>> = [];
    for (let i = start; i < Math.min(start + GROUP, size.runs); i++) {
      group.push(
        store.putRun({
          device: deviceIds[i % deviceIds.length] ?? '',
          id: `run-${i}`,
          contentType: 'text/plain',
          privacy: LEVELS[i % 3] ?? 'full',
          size: body.length,
          uploadedAt: runsFrom + i * RUN_EVERY_MS,
          body,
          sha256: hash,
        }),
      );
    }
    await Promise.all(group);
    if (start > 0 && start % 200_000 === 0) progress(`${start} runs`);
  }
  progress(`${size.runs} runs`);
  // Revoked once their runs are in: a revoked device stores no more.
  for (let i = 49; i < deviceIds.length; i += 50)
    await store.revokeDevice({ subject: 'local:admin', admin: true }, deviceIds[i] ?? '', now);
  const small = runText(8192, 1);
  await store.putRun({
    device: deviceIds[0] ?? '',
    id: 'view-8k',
    contentType: 'text/plain',
    privacy: 'full',
    size: small.length,
    uploadedAt: Date.now(),
    body: small,
    sha256: sha(small),
  });
  const large = runText(16 * 1024 * 1024, 2);
  await store.putRun({
    device: deviceIds[0] ?? '',
    id: 'view-16m',
    contentType: 'text/plain',
    privacy: 'full',
    size: large.length,
    uploadedAt: Date.now(),
    body: large,
    sha256: sha(large),
  });

  // Fifty devices of their own for the upload load, with real credentials. Enrolled last, they are
  // the plain device list's first page: they carry five labels and five facts like every other
  // device, so that page reads and shows what a filtered first page does (without them it showed
  // 50 devices with none, and each filter was measured against a lighter page).
  const uploadCredentials: string[] = [];
  for (let i = 0; i < 50; i++) {
    const credential = randomBytes(32).toString('base64url');
    await store.createEnrollToken({
      hash: `upload-token-${i}`,
      owner: 'oidc:uploader',
      createdBy: 'local:admin',
      createdAt: now,
      expiresAt: now + 1e12,
      labels: benchLabels(size.devices + i),
    });
    await store.enrollDevice({
      tokenHash: `upload-token-${i}`,
      now,
      deviceId: `d_upload${i}`,
      name: `uploader ${i}`,
      credentialHash: createHash('sha256').update(credential).digest('hex'),
      facts: benchFacts(size.devices + i),
    });
    uploadCredentials.push(credential);
  }
  return {
    owner: 'oidc:account-0',
    // An account in 20 groups, measured against an owner of as many devices without any.
    member: 'oidc:account-1',
    fleetOwner: FLEET_OWNER,
    ownerDevice: deviceIds[0] ?? '',
    smallRun: { device: deviceIds[0] ?? '', id: 'view-8k' },
    largeRun: { device: deviceIds[0] ?? '', id: 'view-16m' },
    uploadOwner: 'oidc:uploader',
    uploadCredentials,
    runsMidDay: runsFrom + (size.runs / 2) * RUN_EVERY_MS,
  };
}

/**
 * The level check has seen every run an upload through the server stores; a dataset's runs are
 * stored directly, so they are marked as checked (nothing found) rather than left to the backfill
 * at start, which would check them under the first measured loads (it held the sweep bench's
 * `GET /runs` p99 at about a second).
 */
export function markLevelChecked(db: DatabaseSync): void {
  db.exec("UPDATE runs SET findings = '{}', flagged = 0 WHERE findings IS NULL AND privacy <> 'full'");
}
