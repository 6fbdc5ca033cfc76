/**
 * A TCP proxy on loopback in front of PostgreSQL, so a test can take "the database" away from the
 * processes it serves without touching the server that other tests (and other people) use:
 * `down()` cuts every connection and refuses new ones, as a stopped server does; `up()` serves
 * again on the same port; `silence()` keeps connections open but forwards nothing, as a dead
 * network does.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  silence(): void;
  close(): Promise<void>;
}

export async function tcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let silent = false;
  let server: Server | undefined;
  let port = 0;

  function accept(client: Socket) {
    const upstream = connect(target.port, target.host);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => {
        if (!silent) to.write(chunk);
      });
      from.on('end', () => to.end());
      from.on('error', () => to.destroy());
      from.on('close', () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  }

  let closed = false;

  async function up() {
    if (closed) return;
    silent = false;
    const s = createServer(accept);
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    port = (s.address() as { port: number }).port;
    server = s;
  }

  async function down() {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await up();
  return {
    get port() {
      return port;
    },
    down,
    up,
    silence: () => {
      silent = true;
    },
    // For good: an `up()` still pending from a failed test cannot hold the test process open.
    close: () => {
      closed = true;
      return down();
    },
  };
}
