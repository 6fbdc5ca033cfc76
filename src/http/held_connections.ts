/**
 * Connections holding a device's request open (docs/contract.md section 15): the server's shedding
 * at the connection cap (server/connections.ts) closes them last, never as idle. The control
 * route that holds a request marks its connection here.
 */
import type { Socket } from 'node:net';

const held = new WeakSet<Socket>();

/**
 * The TCP connection under a request's socket: itself for plain HTTP, the one a TLS socket wraps
 * for HTTPS (Node's `_parent`; destroying it ends the TLS socket too).
 */
export function connectionOf(socket: Socket): Socket {
  return (socket as { _parent?: Socket | null })._parent ?? socket;
}

/** Marks the connection under `socket` as holding a request, until the returned function is called. */
export function holdConnection(socket: Socket): () => void {
  const connection = connectionOf(socket);
  held.add(connection);
  return () => held.delete(connection);
}

/** Whether the connection holds a request open. */
export function isHeld(connection: Socket): boolean {
  return held.has(connection);
}
