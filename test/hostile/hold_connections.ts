/**
 * A child process of connections.test.ts holding many slow or idle connections to a server, so the
 * test process's own open-file limit is left for the server. Argument: the port and the count.
 * Prints one JSON line once all are opened ({ opened, open }), then resets them all (no TIME_WAIT
 * left on this side) and exits when its stdin ends.
 */
import { connect, type Socket } from 'node:net';

const [port, count] = process.argv.slice(2).map(Number) as [number, number];
const sockets: Socket[] = [];
let closed = 0;

/** Every tenth: the kinds of connection that cost a client least, in a mix. */
function first(i: number): string | 'keep-alive' {
  const kind = i % 10;
  // Connected, nothing sent.
  if (kind < 4) return '';
  // One request answered, then idle on the kept-alive connection.
  if (kind < 6) return 'keep-alive';
  // Slow headers: a head that never ends.
  if (kind < 9) return 'GET /login HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ';
  // A slow form: the head, then a tenth of the body it declared.
  return 'POST /login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100\r\n\r\nusername=a';
}

function open(i: number): Promise<void> {
  return new Promise((resolve) => {
    // Spread over loopback addresses, so ten thousand ephemeral ports are never short on one.
    const socket = connect({ port, host: '127.0.0.1', localAddress: `127.0.0.${2 + (i % 8)}` });
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.once('close', () => {
      closed++;
      resolve();
    });
    socket.once('connect', () => {
      const bytes = first(i);
      if (bytes !== 'keep-alive') {
        if (bytes) socket.write(bytes);
        return resolve();
      }
      socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      socket.once('data', () => resolve());
    });
  });
}

for (let i = 0; i < count; i += 250) {
  await Promise.all(Array.from({ length: Math.min(250, count - i) }, (_, j) => open(i + j)));
}
process.stdout.write(`${JSON.stringify({ opened: sockets.length, open: sockets.length - closed })}\n`);
process.stdin.resume();
process.stdin.once('end', () => {
  for (const socket of sockets) if (!socket.destroyed) socket.resetAndDestroy();
  process.exit(0);
});
