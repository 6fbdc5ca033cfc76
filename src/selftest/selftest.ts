/** The dashboard's self-test: each check with its outcome, run concurrently and cached briefly. */
import { X509Certificate } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Clock } from '../clock.ts';
import type { OidcClient } from '../oidc/client.ts';
import type { Store } from '../store/store.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
  /** Passed, but needs attention soon (a certificate close to expiry). */
  warning?: boolean;
  detail: string;
}

export interface SelfTest {
  run(): Promise<CheckResult[]>;
}

export interface SelfTestOptions {
  store: Store;
  clock: Clock;
  dataDir?: string | undefined;
  sessionKeys: readonly Buffer[];
  oidc?: OidcClient | undefined;
  /** Certificates whose expiry (and pin, when given) the dashboard shows. */
  certificates?: Array<{ name: string; certPem: string; pin?: string }>;
  /** A page view reuses results this recent, so reloading the dashboard cannot hammer the provider. */
  cacheMs?: number;
}

const CHECK_TIMEOUT_MS = 5_000;

export function createSelfTest(opts: SelfTestOptions): SelfTest {
  const checks: Array<[string, () => Promise<string>]> = [
    ['store read/write', async () => (await opts.store.probe(opts.clock.now()), 'a row was written and read back')],
  ];
  const dataDir = opts.dataDir;
  if (dataDir !== undefined) {
    checks.push(['data directory', async () => (await access(dataDir, constants.W_OK), `${dataDir} is writable`)]);
  }
  checks.push([
    'session keys',
    async () => {
      if (opts.sessionKeys.length === 0 || opts.sessionKeys.some((k) => k.length < 32))
        throw new Error('a key shorter than 32 bytes');
      return `${opts.sessionKeys.length} key(s) of at least 32 bytes`;
    },
  ]);
  const oidc = opts.oidc;
  if (oidc) checks.push(['OIDC discovery', async () => `issuer ${(await oidc.discover()).issuer} answered`]);

  const certificateChecks = (opts.certificates ?? []).map((c) => certificateCheck(c, opts.clock));

  let cache: { at: number; results: Promise<CheckResult[]> } | undefined;
  const runAll = () =>
    Promise.all([
      ...certificateChecks.map((check) => Promise.resolve(check())),
      ...checks.map(async ([name, check]): Promise<CheckResult> => {
        try {
          return { name, ok: true, detail: await withTimeout(check()) };
        } catch (err) {
          return { name, ok: false, detail: err instanceof Error ? err.message : String(err) };
        }
      }),
    ]);

  return {
    run() {
      const now = opts.clock.now();
      if (!cache || now - cache.at >= (opts.cacheMs ?? 5_000)) cache = { at: now, results: runAll() };
      return cache.results;
    },
  };
}

const WARN_DAYS = 14;

/**
 * Expiry of a certificate: failing once expired, a warning under 14 days. Read at each run: the
 * control certificate is renewed and rotated while serving (its entry reads the one served now).
 */
function certificateCheck(c: { name: string; certPem: string; pin?: string }, clock: Clock): () => CheckResult {
  return () => {
    const validTo = new Date(new X509Certificate(c.certPem).validTo).getTime();
    const days = Math.floor((validTo - clock.now()) / 86_400_000);
    const expiry = `expires ${new Date(validTo).toISOString()} (${days} days)`;
    const detail = c.pin ? `pin ${c.pin}; ${expiry}` : expiry;
    if (days < 0 || validTo <= clock.now()) return { name: c.name, ok: false, detail: `${detail}: expired` };
    return days < WARN_DAYS
      ? { name: c.name, ok: true, warning: true, detail: `${detail}: renew it soon` }
      : { name: c.name, ok: true, detail };
  };
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
