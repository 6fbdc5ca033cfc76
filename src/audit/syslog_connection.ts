/**
 * A connection to a syslog collector (docs/contract.md section 13): plain TCP (RFC 6587) or TLS
 * (RFC 5425), the collector's certificate verified against the system's CAs or the configured CA
 * and its name (or IP address) checked. The collector never answers: whatever it sends is read
 * and dropped; its closing, an error or a write that does not complete in time marks the
 * connection broken, and the sender starts again from the position kept in the store.
 */
import { connect as tcpConnect, isIP, type Socket } from 'node:net';
import { connect as tlsConnect, getCACertificates } from 'node:tls';
import type { SyslogTarget } from '../config/parse.ts';

export interface SyslogConnectOptions {
  /** PEM CA(s) for tls://; the system's CAs when absent. */
  ca?: string | undefined;
  /** How long the TCP connect and the TLS handshake may take together. */
  timeoutMs: number;
}

export interface SyslogConnection {
  /** Writes the frames; resolves once the kernel has them, rejects when the connection fails or stalls. */
  write(data: Buffer, timeoutMs: number): Promise<void>;
  /** Why the connection cannot be used any more, once it cannot. */
  broken(): Error | undefined;
  /**
   * Closes it in order: true when the collector then closed its side without error, which means it
   * read everything written (a collector closes after reading the end of the stream).
   */
  end(timeoutMs: number): Promise<boolean>;
  destroy(): void;
}

/**
 * The operating system's trusted CAs (and NODE_EXTRA_CA_CERTS), as docs/contract.md section 13 says,
 * rather than the CA list built into Node; that list when the system has none.
 */
function systemCas(): string[] {
  const system = [...getCACertificates('system'), ...getCACertificates('extra')];
  return system.length > 0 ? system : getCACertificates('default');
}

export class SyslogConnectError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SyslogConnectError';
  }
}

/** Opens the connection (and, for tls://, completes the handshake and the verification). */
export function connectSyslog(target: SyslogTarget, opts: SyslogConnectOptions): Promise<SyslogConnection> {
  return new Promise((resolve, reject) => {
    const ready = target.scheme === 'tls' ? 'secureConnect' : 'connect';
    const socket: Socket =
      target.scheme === 'tls'
        ? tlsConnect({
            host: target.host,
            port: target.port,
            // SNI takes a name, never an address; the certificate is checked against either.
            ...(isIP(target.host) === 0 ? { servername: target.host } : {}),
            ca: opts.ca ?? systemCas(),
            minVersion: 'TLSv1.2',
          })
        : tcpConnect({ host: target.host, port: target.port });
    const timer = setTimeout(() => fail(new Error(`no connection within ${opts.timeoutMs} ms`)), opts.timeoutMs);
    function fail(err: Error): void {
      clearTimeout(timer);
      socket.destroy();
      reject(new SyslogConnectError(`${target.text}: ${err.message}`, { cause: err }));
    }
    socket.once('error', fail);
    socket.once(ready, () => {
      clearTimeout(timer);
      socket.off('error', fail);
      resolve(connection(socket, target));
    });
  });
}

function connection(socket: Socket, target: SyslogTarget): SyslogConnection {
  let broken: Error | undefined;
  const breaks = new Set<(err: Error) => void>();
  const brk = (err: Error) => {
    broken ??= err;
    for (const notify of breaks) notify(broken);
  };
  let closedCleanly: ((clean: boolean) => void) | undefined;
  let hadError = false;
  socket.setKeepAlive(true, 30_000);
  socket.on('error', (err) => {
    hadError = true;
    brk(new Error(`${target.text}: ${err.message}`));
  });
  socket.on('end', () => brk(new Error(`${target.text}: the collector closed the connection`)));
  socket.on('close', () => {
    brk(new Error(`${target.text}: the connection closed`));
    closedCleanly?.(!hadError);
  });
  // A collector sends nothing; anything it does send is read and dropped.
  socket.resume();
  return {
    write(data, timeoutMs) {
      if (broken) return Promise.reject(broken);
      return new Promise<void>((resolve, reject) => {
        const onBreak = (err: Error) => finish(err);
        const timer = setTimeout(() => {
          const err = new Error(`${target.text}: a write did not complete within ${timeoutMs} ms`);
          brk(err);
          socket.destroy();
          finish(err);
        }, timeoutMs);
        function finish(err?: Error | null): void {
          clearTimeout(timer);
          breaks.delete(onBreak);
          if (err) reject(err);
          else resolve();
        }
        breaks.add(onBreak);
        socket.write(data, (err) => finish(err ? (broken ?? err) : undefined));
      });
    },
    broken: () => broken,
    end(timeoutMs) {
      // A connection the collector closed first proves nothing of what it read.
      if (broken || socket.destroyed) {
        socket.destroy();
        return Promise.resolve(false);
      }
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          socket.destroy();
          resolve(false);
        }, timeoutMs);
        closedCleanly = (clean) => {
          clearTimeout(timer);
          resolve(clean);
        };
        socket.end();
      });
    },
    destroy: () => socket.destroy(),
  };
}
