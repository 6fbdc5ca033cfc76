/**
 * `GET /healthz` answered straight from the Node request, before the web-standard adapter builds
 * a Request and a Response: load balancers ask it of every instance every few seconds, and it is
 * the one answer that depends on nothing but the version. Same status, body and headers as the
 * interface's own route (a test compares them); anything else, including a request for another
 * side or a misdirected one, falls through to the full stack.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { DEFAULT_CACHE_CONTROL, SECURITY_HEADERS } from '../http/security_headers.ts';
import { HEALTHZ_CONTENT_TYPE, healthDocument } from '../service/healthz.ts';
import type { Side } from '../host/host_router.ts';
import type { Metrics } from '../metrics/metrics.ts';

export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

export function healthFastPath(
  version: string,
  sideOf: (host: string | undefined, sni: string, path: string) => Side,
  metrics?: Pick<Metrics, 'answered'>,
): FastPath {
  const body = Buffer.from(healthDocument(version));
  const headers = {
    'Content-Type': HEALTHZ_CONTENT_TYPE,
    ...SECURITY_HEADERS,
    'Cache-Control': DEFAULT_CACHE_CONTROL,
    'Content-Length': String(body.byteLength),
  };
  return function healthz(req, res) {
    if (req.url !== '/healthz' || req.method !== 'GET') return false;
    const sni = (req.socket as Partial<TLSSocket>).servername || '';
    if (sideOf(req.headers.host, sni, '/healthz') !== 'admin') return false;
    res.writeHead(200, headers);
    res.end(body);
    // Counted as the console's own route would have been.
    metrics?.answered({ server: 'console', route: '/healthz', method: 'GET', status: 200 });
    return true;
  };
}
