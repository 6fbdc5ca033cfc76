/** The dashboard's self-test: each check with its outcome, run concurrently and cached briefly. */
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import type { Clock } from '../clock.ts';
import type { OidcClient } from '../oidc/client.ts';
import type { Store } from '../store/store.ts';

export interface CheckResult {
  name: string;
  ok: boolean;
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

  let cache: { at: number; results: Promise<CheckResult[]> } | undefined;
  const runAll = () =>
    Promise.all(
      checks.map(async ([name, check]): Promise<CheckResult> => {
        try {
          return { name, ok: true, detail: await withTimeout(check()) };
        } catch (err) {
          return { name, ok: false, detail: err instanceof Error ? err.message : String(err) };
        }
      }),
    );

  return {
    run() {
      const now = opts.clock.now();
      if (!cache || now - cache.at >= (opts.cacheMs ?? 5_000)) cache = { at: now, results: runAll() };
      return cache.results;
    },
  };
}

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${CHECK_TIMEOUT_MS / 1000} s`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
