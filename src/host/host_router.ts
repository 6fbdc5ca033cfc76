/**
 * One port, two host names (issue 3): the operator interface, /healthz and /v1/discover answer on
 * the admin host; the control API on the control host. Under TLS the side is the one whose
 * certificate the handshake chose (SNI); a Host header that names another host than that side's
 * is answered `421 Misdirected Request` (RFC 9110 section 15.5.20).
 */
import type { Hono } from 'hono';
import { isControlPath } from '../control/routes.ts';
import { failureResponse } from '../http/failures.ts';
import type { Metrics } from '../metrics/metrics.ts';

export interface HostRouterOptions {
  adminHost: string;
  controlHost: string;
  tls: boolean;
  /** The admin host's app: the console, the JSON API and the service routes (createInterface). */
  admin: Pick<Hono, 'fetch'>;
  /** The control host's app: the device-facing control routes (createControlApp). */
  control: Pick<Hono, 'fetch'>;
  /** Counts the 421 answers, which neither side's app sees. */
  metrics?: Pick<Metrics, 'answered'> | undefined;
}

export type Side = 'admin' | 'control' | 'misdirected';

type Env = { incoming?: { socket?: { servername?: string | false } } } | undefined;

/** The host of a Host header, lower-cased, without port or IPv6 brackets. */
export function hostOfHostHeader(header: string | null | undefined): string {
  const h = (header ?? '').trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::\d+)?$/.exec(h);
  if (bracketed) return bracketed[1] ?? '';
  return h.replace(/:\d+$/, '');
}

/**
 * Which side answers a request, from its Host header, the TLS server name of its connection
 * (empty without TLS or SNI) and its path. Shared by the router and the health fast path.
 */
export function sideResolver(opts: Pick<HostRouterOptions, 'adminHost' | 'controlHost' | 'tls'>) {
  const adminHost = opts.adminHost.toLowerCase();
  const controlHost = opts.controlHost.toLowerCase();
  // With one name for both (the loopback default, docs/contract.md section 6), both sets of routes answer there.
  if (adminHost === controlHost) {
    return (_host: string | null | undefined, _sni: string, path: string): Side =>
      isControlPath(path) ? 'control' : 'admin';
  }
  return (hostHeader: string | null | undefined, sni: string, _path: string): Side => {
    const host = hostOfHostHeader(hostHeader);
    if (opts.tls) {
      // An unknown or absent server name got the admin certificate, so the request is the admin side's.
      const side = sni.toLowerCase() === controlHost ? controlHost : adminHost;
      if (host !== side) return 'misdirected';
    }
    return host === controlHost ? 'control' : 'admin';
  };
}

export function hostRouter(opts: HostRouterOptions): (req: Request, env: unknown) => Response | Promise<Response> {
  const sideOf = sideResolver(opts);
  return function routeByHost(req, env) {
    const sni = (env as Env)?.incoming?.socket?.servername || '';
    switch (sideOf(req.headers.get('host'), sni, new URL(req.url).pathname)) {
      case 'admin':
        return opts.admin.fetch(req, env);
      case 'control':
        return opts.control.fetch(req, env);
      case 'misdirected': {
        // Labelled with the side the connection's certificate chose, as the apps label theirs.
        const server = sni.toLowerCase() === opts.controlHost.toLowerCase() ? 'control' : 'console';
        opts.metrics?.answered({ server, route: 'misdirected', method: req.method, status: 421 });
        return failureResponse('misdirected');
      }
    }
  };
}
