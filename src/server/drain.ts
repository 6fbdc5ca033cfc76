/**
 * A stop that ends: the server stops accepting, idle keep-alive connections are closed at once,
 * requests in flight get `drainMs` to finish (their answers close their connections), and then
 * whatever remains (a client that stalled mid-header or mid-body) is closed, so a service
 * manager's stop never waits for a client.
 */
import type { Server } from 'node:http';

export function drain(server: Server, drainMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
