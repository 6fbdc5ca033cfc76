/**
 * TLS for devices on the plain-HTTP port (issue 23): `npm start` serves the console over plain HTTP
 * on loopback, but the enrollment link it mints pins the control certificate, and the device client
 * speaks only pinned TLS. Each connection's first byte tells them apart: a TLS handshake starts with
 * a handshake record (content type 22, RFC 8446 section 5.1), which no HTTP method starts with. Such
 * a connection is served the control certificate and then handed to the same HTTP server as a
 * plain one, so routing, limits, draining and the answers' headers are the same on both.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { type SecureContext, TLSSocket } from 'node:tls';

const HANDSHAKE_RECORD = 0x16;

export function acceptTlsOnPlainPort(server: Server, control: () => SecureContext): void {
  // The HTTP server's own handler for new connections, called with the plain or the TLS socket.
  // Emitting 'connection' with a socket of one's own is how Node documents injecting one.
  const serveHttp = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  const handOver = (socket: Socket) => serveHttp.forEach((serve) => serve.call(server, socket));
  // Connections not yet HTTP's (no byte yet, or in the handshake) are idle: a stop closes them at
  // once, as the HTTP server does its idle ones, and they get as long as a request's headers.
  const waiting = new Set<Socket>();
  const closeIdle = server.closeIdleConnections.bind(server);
  server.closeIdleConnections = function closeIdleConnections() {
    waiting.forEach((socket) => socket.destroy());
    closeIdle();
  };
  /** Holds a connection until its new owner takes it; returns the release. */
  const hold = (socket: Socket) => {
    const drop = () => socket.destroy();
    const timer = setTimeout(drop, server.headersTimeout);
    const release = () => {
      clearTimeout(timer);
      waiting.delete(socket);
      socket.removeListener('error', drop);
    };
    waiting.add(socket);
    socket.on('error', drop);
    socket.once('close', release);
    return release;
  };
  server.on('connection', function sniffFirstByte(socket: Socket) {
    const released = hold(socket);
    socket.once('data', (chunk: Buffer) => {
      released();
      // The byte goes back in front; paused so that nothing flows before the new owner listens.
      socket.pause();
      socket.unshift(chunk);
      if (chunk[0] !== HANDSHAKE_RECORD) {
        handOver(socket);
        socket.resume();
        return;
      }
      // The TCP socket is the TLS socket's now; an error of it reaches the TLS socket, not HTTP.
      socket.on('error', () => socket.destroy());
      const tls = new TLSSocket(socket, { isServer: true, secureContext: control(), ALPNProtocols: ['http/1.1'] });
      const handshaking = hold(tls);
      tls.once('secure', () => {
        handshaking();
        handOver(tls);
      });
    });
  });
}
