/**
 * A real server in this process on a loopback port with a fresh data directory, and what a test
 * needs to drive it over sockets: a signed-in admin, enrolled devices, raw exchanges.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/config.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { type RunningServer, type ServeOptions, startServer } from '../../src/server/serve.ts';
import { shownAccessToken } from './harness.ts';

export const LIVE_PASSWORD = 'a live server password';

export interface Live {
  server: RunningServer;
  url: string;
  port: number;
  logs: ReturnType<typeof memoryLogger>['records'];
  dataDir: string;
  /** Signs the admin in; returns the cookie and a CSRF token. */
  signIn(): Promise<{ cookie: string; csrf: string }>;
  /** Creates a personal access token of the admin through the console (`pdk_…`), of `scope` when given. */
  accessToken(name?: string, scope?: string): Promise<string>;
  /** Mints a token through the console and enrolls a device with it. */
  enroll(name?: string): Promise<{ device: string; credential: string }>;
  close(): Promise<void>;
}

export async function live(env: Record<string, string> = {}, opts: Partial<ServeOptions> = {}): Promise<Live> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-live-'));
  const dataDir = join(dir, 'data');
  const logger = memoryLogger();
  const config = loadConfig({
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_DATA_DIR: dataDir,
    PADDOCK_ADMIN_PASSWORD: LIVE_PASSWORD,
    ...env,
  });
  const server = await startServer(config, { logger, announce: () => undefined, ...opts });
  const url = server.url;
  let session: { cookie: string; csrf: string } | undefined;
  const signIn = async () => {
    const login = await fetch(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: LIVE_PASSWORD }),
      redirect: 'manual',
    });
    const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${url}/devices`, { headers: { cookie } })).text();
    return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '' };
  };
  return {
    server,
    url,
    port: Number(new URL(url).port),
    logs: logger.records,
    dataDir,
    signIn,
    async accessToken(name = 'live token', scope?: string) {
      session ??= await signIn();
      const made = await fetch(`${url}/tokens`, {
        method: 'POST',
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: session.csrf, name, ...(scope === undefined ? {} : { scope }) }),
      });
      const token = shownAccessToken(await made.text());
      if (!token) throw new Error('no access token on the page');
      return token;
    },
    async enroll(name = 'live-device') {
      session ??= await signIn();
      const mint = await fetch(`${url}/enroll-tokens`, {
        method: 'POST',
        headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf: session.csrf }),
      });
      const link = /(paddock:\/\/enroll\?[^<]+)</.exec(await mint.text())?.[1]?.replaceAll('&amp;', '&') ?? '';
      const token = new URL(link).searchParams.get('token');
      const res = await fetch(`${url}/v1/enroll`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token, name }),
      });
      if (res.status !== 201) throw new Error(`enroll: ${res.status}`);
      return (await res.json()) as { device: string; credential: string };
    },
    async close() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Sends raw bytes; resolves with everything the server wrote until it closed (or `ms` passed). */
export function exchange(port: number, bytes: string | Buffer, ms = 5_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.setEncoding('latin1').on('data', (d: string) => (out += d));
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.on('error', reject);
  });
}

/** The status codes of every response in a raw exchange, in order. */
export function statuses(raw: string): number[] {
  return [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
}
