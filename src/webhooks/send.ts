/**
 * One delivery attempt over HTTP (docs/contract.md section 13): a POST that follows no redirect
 * (a 3xx is an answer like any other non-2xx), ends after `timeoutMs` whatever it is doing, and
 * reads at most 64 KiB of the answer. Names are resolved by a lookup of our own that refuses the
 * addresses of target.ts, so the address checked is the address connected to; the socket's
 * remote address is checked again once connected. Connections are kept alive by the sender's
 * agents (send's `agent`): a kept socket was checked when it connected, and its address cannot
 * change since; a new connection is checked again.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction, Socket } from 'node:net';
import { refusedAddress } from './target.ts';

export const TIMEOUT_MS = 10_000;
/** Of the answer, at most this much is read; the rest is left unread (the connection is closed). */
export const ANSWER_LIMIT = 64 * 1024;

export interface SendOptions {
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Extra trusted CA certificates (PEM): tests' self-signed receivers. Not a setting. */
  ca?: string;
  /** Keep-alive agents (the sender's); without them, a connection per attempt. */
  agents?: { http: http.Agent; https: https.Agent };
}

/** Keep-alive agents for one sender: at most `sockets` connections per target. */
export function keepAliveAgents(sockets: number): { http: http.Agent; https: https.Agent } {
  const options = { keepAlive: true, maxSockets: sockets, maxFreeSockets: sockets, timeout: 30_000 };
  return { http: new http.Agent(options), https: new https.Agent(options) };
}

export type SendResult = { statusCode: number; durationMs: number } | { error: string; durationMs: number };

class Refused extends Error {}

/** dns.lookup, keeping only the addresses a webhook may reach. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return (callback as (e: Error) => void)(err);
      const allowed = allowPrivate ? addresses : addresses.filter((a) => refusedAddress(a.address) === undefined);
      const first = allowed[0];
      if (!first) {
        const kind = addresses[0] ? refusedAddress(addresses[0].address) : 'no address';
        return (callback as (e: Error) => void)(new Refused(`refused: ${kind} address`));
      }
      if (options.all) (callback as (e: null, a: LookupAddress[]) => void)(null, allowed);
      else callback(null, first.address, first.family);
    });
  };
}

export function send(url: URL, headers: Record<string, string>, body: string, opts: SendOptions): Promise<SendResult> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let settled = false;
    /** `keep`: the answer was read to its end, so the connection may serve the next attempt. */
    const done = (result: { statusCode: number } | { error: string }, keep = false) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!keep) req.destroy();
      resolve({ ...result, durationMs: took() });
    };
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const literal = refusedAddress(host);
    if (!opts.allowPrivate && literal !== undefined && literal !== 'not an address') {
      resolve({ error: `refused: ${literal} address`, durationMs: 0 });
      return;
    }
    const secure = url.protocol === 'https:';
    const request = secure ? https.request : http.request;
    const agent = opts.agents ? (secure ? opts.agents.https : opts.agents.http) : false;
    const req = request(url, {
      method: 'POST',
      agent,
      lookup: guardedLookup(opts.allowPrivate),
      headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      ...(opts.ca ? { ca: opts.ca } : {}),
    });
    const timer = setTimeout(() => done({ error: 'timeout' }), opts.timeoutMs ?? TIMEOUT_MS);
    req.on('socket', (socket: Socket) => {
      // A kept-alive socket was checked when it connected.
      if (!socket.connecting) return;
      socket.once('connect', () => {
        const kind = socket.remoteAddress === undefined ? 'no' : refusedAddress(socket.remoteAddress);
        if (!opts.allowPrivate && kind !== undefined) done({ error: `refused: ${kind} address` });
      });
    });
    req.on('response', (res) => {
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= ANSWER_LIMIT) done({ statusCode: res.statusCode ?? 0 });
      });
      res.on('end', () => done({ statusCode: res.statusCode ?? 0 }, true));
      res.on('error', () => done({ statusCode: res.statusCode ?? 0 }));
    });
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof Refused) done({ error: err.message });
      else done({ error: describe(err) });
    });
    req.end(body);
  });
}

function describe(err: NodeJS.ErrnoException): string {
  switch (err.code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return 'unknown host';
    case 'ECONNRESET':
      return 'connection reset';
    default:
      return err.code ? `${err.code.toLowerCase()}` : 'connection failed';
  }
}
