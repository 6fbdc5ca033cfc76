/**
 * The client address for logs and the throttle: the socket's remote address without its port, or
 * the address a trusted load balancer's PROXY protocol header named for the connection
 * (docs/contract.md section 18; server/accept_proxy_protocol.ts).
 * X-Forwarded-For is ignored by design (specification, Authentication item 6): it is client-supplied.
 */
import type { Socket } from 'node:net';
import type { Context } from 'hono';
import { connectionOf } from './held_connections.ts';

/** Addresses named by PROXY protocol headers, by TCP connection (under a TLS socket, the one it wraps). */
const proxied = new WeakMap<Socket, string>();

/** Records the client a PROXY protocol header named for `connection`, a TCP socket. */
export function setProxiedAddress(connection: Socket, address: string): void {
  proxied.set(connection, address);
}

export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: Socket } } | undefined;
  return socketAddress(env?.incoming?.socket);
}

/** The client address of a request's socket, before any handler sees it (server/open_bodies.ts). */
export function socketAddress(socket: Socket | undefined): string {
  const address = (socket && proxied.get(connectionOf(socket))) ?? socket?.remoteAddress ?? 'unknown';
  // An IPv4 client on a dual-stack socket appears as ::ffff:a.b.c.d; log the address it really has.
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
