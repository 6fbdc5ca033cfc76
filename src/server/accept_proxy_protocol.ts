/**
 * Behind a load balancer (docs/contract.md section 18): a connection from a trusted address must
 * begin with a PROXY protocol header, and the client it names is the request's client address from
 * then on (http/client_address.ts); a connection from any other address must not begin with one.
 * Either mistake closes the connection. The header is read before anything else sees a byte, so
 * before the first byte that tells TLS from plain HTTP (plain_port_tls.ts) and before the TLS
 * handshake.
 */
import type { Server } from 'node:http';
import { BlockList, type Socket } from 'node:net';
import type { AddressRange } from '../config/parse.ts';
import { setProxiedAddress } from '../http/client_address.ts';
import { readProxyHeader, signatureOf } from './proxy_protocol.ts';

export interface ProxyProtocolOptions {
  /** Whether a peer is a load balancer, which must send a header; no one else may. */
  trusted: (address: string) => boolean;
  /** How long a connection has to send its header whole. */
  headerTimeoutMs?: number | undefined;
}

/**
 * A balancer sends its header at once, with the connection (section 2 of the specification); the
 * specification asks receivers that time out to allow at least 3 s, to cover a TCP retransmit.
 */
export const PROXY_HEADER_TIMEOUT_MS = 5_000;

/** The trusted peers of PADDOCK_PROXY_PROTOCOL_FROM, as a check of a socket's remote address. */
export function trustedPeers(ranges: readonly AddressRange[]): (address: string) => boolean {
  const list = new BlockList();
  for (const range of ranges) list.addSubnet(range.address, range.prefix, range.family === 4 ? 'ipv4' : 'ipv6');
  // An IPv4 peer of a dual-stack socket is named ::ffff:a.b.c.d: the block list matches it to
  // IPv4 ranges.
  return (address) => address !== '' && list.check(address, address.includes(':') ? 'ipv6' : 'ipv4');
}

export function acceptProxyProtocol(server: Server, opts: ProxyProtocolOptions): void {
  // The connection's next owners (the TLS sniffer or handshake, the HTTP server), called once the
  // header is read, as plain_port_tls.ts hands a connection on.
  const next = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  const handOver = (socket: Socket) => next.forEach((listener) => listener.call(server, socket));
  // Connections whose header is still awaited are idle: a stop closes them at once.
  const waiting = new Set<Socket>();
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = function closeIdleConnections() {
    waiting.forEach((socket) => socket.destroy());
    closeIdle();
  };
  const timeoutMs = opts.headerTimeoutMs ?? PROXY_HEADER_TIMEOUT_MS;

  server.on('connection', function awaitProxyHeader(socket: Socket) {
    const trusted = opts.trusted(socket.remoteAddress ?? '');
    let received: Buffer = Buffer.alloc(0);
    const drop = () => socket.destroy();
    const timer = setTimeout(drop, timeoutMs);
    const release = () => {
      clearTimeout(timer);
      waiting.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('end', drop);
      socket.removeListener('error', drop);
    };
    /** The header is read (or there is none to read): the rest goes back in front for the next owner. */
    const pass = (rest: Buffer) => {
      release();
      socket.pause();
      if (rest.length > 0) socket.unshift(rest);
      handOver(socket);
      // An owner that reads the socket's stream gets it flowing; a TLS socket wrapped around it
      // reads what was put back itself and takes over the connection under it.
      if (socket.listenerCount('data') > 0) socket.resume();
    };
    function onData(chunk: Buffer) {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
      if (!trusted) {
        // A header from anyone else would let them name any address: never read, and the
        // connection closed.
        const signature = signatureOf(received);
        if (signature === 'none') pass(received);
        else if (signature !== 'incomplete') drop();
        return;
      }
      const read = readProxyHeader(received);
      if (read.kind === 'incomplete') return;
      if (read.kind === 'invalid') return void drop();
      if (read.header.command === 'proxy') setProxiedAddress(socket, read.header.source.address);
      pass(received.subarray(read.length));
    }
    waiting.add(socket);
    socket.on('data', onData);
    // Closed on its side before a header was whole: nothing more can come.
    socket.on('end', drop);
    socket.on('error', drop);
    socket.once('close', release);
  });
}
