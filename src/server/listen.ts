/**
 * The listening socket: plain HTTP on loopback, or TLS with two certificates on one port, the
 * control certificate for the control host's server name and the admin certificate for any other.
 * Requests go to the web-standard handler through @hono/node-server, after an optional fast path.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureContext } from 'node:tls';
import { getRequestListener } from '@hono/node-server';
import type { PemPair } from '../config/pem.ts';
import type { FastPath } from './health_fast_path.ts';

export interface ListenOptions {
  host: string;
  port: number;
  tls?: { admin: PemPair; control: PemPair; controlHost: string } | undefined;
  /** Answers some requests itself (returning true) before the handler sees them. */
  fastPath?: FastPath | undefined;
  /** Errors of the listening socket after it started (such as a failed accept). */
  onError?: ((err: Error) => void) | undefined;
}

export function listen(
  handler: (req: Request, env: unknown) => Response | Promise<Response>,
  opts: ListenOptions,
): Promise<Server> {
  // A request without Host (HTTP/1.0) is read as addressed to the listen address, as before.
  const adapter = getRequestListener(handler, { hostname: opts.host });
  const fast = opts.fastPath;
  const listener = fast
    ? (req: IncomingMessage, res: ServerResponse) => (fast(req, res) ? undefined : adapter(req, res))
    : adapter;
  const tls = opts.tls;
  let server: Server;
  if (tls) {
    const control = createSecureContext({ cert: tls.control.certPem, key: tls.control.keyPem });
    const controlHost = tls.controlHost.toLowerCase();
    server = createHttpsServer(
      {
        cert: tls.admin.certPem,
        key: tls.admin.keyPem,
        minVersion: 'TLSv1.2',
        // An unknown or absent server name gets the admin certificate (undefined: the default context).
        SNICallback: (servername, done) => done(null, servername.toLowerCase() === controlHost ? control : undefined),
      },
      listener,
    );
  } else {
    server = createHttpServer(listener);
  }
  return new Promise<Server>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      server.on('error', (err) => opts.onError?.(err));
      resolve(server);
    });
  });
}
