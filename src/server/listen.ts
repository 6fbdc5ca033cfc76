/**
 * The listening socket: plain HTTP on loopback, or TLS with two certificates on one port, the
 * control certificate for the control host's server name and the admin certificate for any other.
 */
import { createSecureContext } from 'node:tls';
import { createServer as createHttpsServer } from 'node:https';
import { serve, type ServerType } from '@hono/node-server';
import type { PemPair } from '../config/pem.ts';

export interface ListenOptions {
  host: string;
  port: number;
  tls?: { admin: PemPair; control: PemPair; controlHost: string } | undefined;
}

export function listen(
  handler: (req: Request, env: unknown) => Response | Promise<Response>,
  opts: ListenOptions,
): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    let server: ServerType;
    const ready = () => resolve(server);
    const tls = opts.tls;
    if (tls) {
      const control = createSecureContext({ cert: tls.control.certPem, key: tls.control.keyPem });
      const controlHost = tls.controlHost.toLowerCase();
      server = serve(
        {
          fetch: handler,
          hostname: opts.host,
          port: opts.port,
          createServer: createHttpsServer,
          serverOptions: {
            cert: tls.admin.certPem,
            key: tls.admin.keyPem,
            minVersion: 'TLSv1.2',
            // An unknown or absent server name gets the admin certificate (undefined: the default context).
            SNICallback: (servername, done) =>
              done(null, servername.toLowerCase() === controlHost ? control : undefined),
          },
        },
        ready,
      );
    } else {
      server = serve({ fetch: handler, hostname: opts.host, port: opts.port }, ready);
    }
    server.once('error', reject);
  });
}
