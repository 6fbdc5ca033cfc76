/**
 * The admin CLI's side of the JSON API (docs/contract.md section 11): where the server is and which token
 * to send come from `PADDOCK_URL` and `PADDOCK_TOKEN` (never from the command line, where `ps`
 * and shell history would show the token). Every failure becomes a CliFailure with the exit code
 * scripts can tell apart: 1 the server refused or failed (with its problem's words), 2 a usage or
 * configuration mistake, 3 the server could not be reached.
 */
import { isLoopbackHost } from '../config/parse.ts';
import { ACCESS_TOKEN } from '../domain/access_tokens.ts';
import { type Advice, transportFailure } from './transport.ts';

export const EXIT = { ok: 0, refused: 1, usage: 2, unreachable: 3 } as const;

export class CliFailure extends Error {
  readonly code: number;
  constructor(message: string, code: number) {
    super(message);
    this.name = 'CliFailure';
    this.code = code;
  }
}

/** How long one request may take before the server counts as unreachable. */
const TIMEOUT_MS = 30_000;

/** A query: each parameter once, several times (a list of values) or not at all (undefined). */
export type Query = Record<string, string | readonly string[] | undefined>;

export interface ApiClient {
  /** GET a JSON resource; `query` values that are undefined are left out, a list's each given. */
  get(path: string, query?: Query): Promise<unknown>;
  /** POST (a JSON body when given) or DELETE; the JSON answer, or undefined for 204. */
  send(method: 'POST' | 'DELETE', path: string, json?: Record<string, unknown>): Promise<unknown>;
  /** GET a resource's bytes as a stream. */
  download(path: string): Promise<ReadableStream<Uint8Array>>;
}

export function apiClient(env: NodeJS.ProcessEnv): ApiClient {
  const base = serverUrl(env.PADDOCK_URL);
  const token = env.PADDOCK_TOKEN ?? '';
  if (!ACCESS_TOKEN.test(token))
    throw new CliFailure('PADDOCK_TOKEN must hold a personal access token (pdk_…, made on /tokens)', EXIT.usage);

  async function call(method: string, path: string, init: { query?: URLSearchParams; json?: object } = {}) {
    const url = new URL(`${base.pathname.replace(/\/$/, '')}${path}`, base);
    if (init.query) url.search = init.query.toString();
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers,
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
        // A redirect would mean PADDOCK_URL is not the console's address: never follow it with the token.
        redirect: 'manual',
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (err) {
      throw new CliFailure(transportFailure(err, base, ADVICE), EXIT.unreachable);
    }
    if (res.status >= 300) throw new CliFailure(await failureText(res), EXIT.refused);
    return res;
  }

  const json = async (res: Response) => (res.status === 204 ? undefined : ((await res.json()) as unknown));

  return {
    async get(path, query = {}) {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query))
        for (const one of value === undefined ? [] : typeof value === 'string' ? [value] : value)
          params.append(name, one);
      return json(await call('GET', path, { query: params }));
    },
    async send(method, path, body) {
      return json(await call(method, path, { json: body }));
    },
    async download(path) {
      const res = await call('GET', path);
      if (!res.body) throw new CliFailure('the server sent no body', EXIT.refused);
      return res.body;
    },
  };
}

/**
 * PADDOCK_URL: an https URL without credentials, query or fragment; http only on a loopback host,
 * as the server itself serves it, since the token would cross the network in the clear. The API's
 * own address (the console's followed by /api/v1, as the OpenAPI document names it) is accepted
 * as the console's: it can mean nothing else.
 */
export function serverUrl(text: string | undefined): URL {
  const url = text ? URL.parse(text) : null;
  if (url) url.pathname = url.pathname.replace(/\/api\/v1\/?$/, '/');
  if (!url || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash)
    throw new CliFailure(
      'PADDOCK_URL must be the console address, such as https://paddock.example (no credentials, query or fragment)',
      EXIT.usage,
    );
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    throw new CliFailure(
      'PADDOCK_URL must be https:// unless it names this machine: the token would cross the network in the clear',
      EXIT.usage,
    );
  return url;
}

/** What to do about a certificate the system does not trust, or a server without TLS. */
const ADVICE: Advice = {
  trust: 'trust its CA (or the self-signed certificate itself) with NODE_EXTRA_CA_CERTS=/path/to/ca.pem',
  plainPort: true,
  plain: (url) =>
    isLoopbackHost(url.hostname)
      ? `use PADDOCK_URL=http://${url.host}${url.pathname.replace(/\/$/, '')}`
      : 'is PADDOCK_URL the address the server serves TLS on?',
};

/** The server's own words: the problem's status, title, detail and field, or the start of its text. */
async function failureText(res: Response): Promise<string> {
  if (res.status < 400)
    return `${res.status}: the server redirected to ${res.headers.get('location') ?? '?'}; is PADDOCK_URL the console address?`;
  const text = (await res.text().catch(() => '')).slice(0, 2000);
  if ((res.headers.get('content-type') ?? '').startsWith('application/problem+json')) {
    try {
      const p = JSON.parse(text) as { title?: unknown; detail?: unknown; field?: unknown };
      const field = typeof p.field === 'string' && p.field ? ` (field: ${p.field})` : '';
      const detail = typeof p.detail === 'string' ? `: ${p.detail}` : '';
      return `${res.status} ${String(p.title ?? '')}${detail}${field}`;
    } catch {
      // Not the problem it claims to be: show its text as for any other answer.
    }
  }
  return `${res.status}: ${text.trim().split('\n')[0] ?? ''}`;
}
