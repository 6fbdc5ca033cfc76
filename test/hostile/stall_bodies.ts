/**
 * A child process that holds many connections to a server, each stalled where a client without a
 * credential can stall it (docs/contract.md section 23): idle, a device's request held over TLS, or
 * inside a body on a route open without a credential (`POST /v1/enroll` over TLS, `POST /login` and
 * `POST /oidc/backchannel-logout` in plain HTTP), each declaring 64 KiB and sending part of it.
 * In a process of its own, so the test's or the bench's file descriptors and memory are not the
 * server's; spread over the loopback addresses 127.0.0.2 onwards (each its own client address).
 *
 * Argument: a JSON file or string `{ port, addresses, sent?, groups: [{ kind, count }], credentials? }`
 * (`sent`: body bytes sent before the stall, 16 KiB by default; `credentials`: devices' for `held`).
 * Prints one JSON line once every connection was opened and written (`{ opened, open, answered }`,
 * `answered` counting the statuses of what the server answered early, by status), and another each
 * time a line comes on stdin. Resets every connection and exits when stdin ends.
 */
import { readFileSync } from 'node:fs';
import { connect as tcp, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { connect as tls, TLSSocket } from 'node:tls';
import type { StallKind, StallSetup } from '../../bench/stall.ts';

const DECLARED = 65_536;

/** The bytes a connection of `kind` sends before it stalls. */
function opening(kind: StallKind, i: number, setup: StallSetup): string {
  const host = `Host: 127.0.0.1:${setup.port}\r\n`;
  const sent = Math.min(setup.sent ?? 16_384, DECLARED - 1);
  const body = (path: string, type: string, start: string) =>
    `POST ${path} HTTP/1.1\r\n${host}Content-Type: ${type}\r\nContent-Length: ${DECLARED}\r\n\r\n${start}${'a'.repeat(sent - start.length)}`;
  switch (kind) {
    case 'idle':
      return '';
    case 'held': {
      const credentials = setup.credentials ?? [];
      return `GET /v1/requests?wait=60 HTTP/1.1\r\n${host}Authorization: Bearer ${credentials[i % credentials.length]}\r\n\r\n`;
    }
    case 'enroll':
      return body('/v1/enroll', 'application/json', '{"token":"');
    case 'login':
      return body('/login', 'application/x-www-form-urlencoded', 'username=');
    case 'backchannel':
      return body('/oidc/backchannel-logout', 'application/x-www-form-urlencoded', 'logout_token=');
  }
}

const arg = process.argv[2] ?? '';
const setup = JSON.parse(arg.trimStart().startsWith('{') ? arg : readFileSync(arg, 'utf8')) as StallSetup;
const sockets: Socket[] = [];
const answered: Record<string, number> = {};
let closed = 0;

function open(kind: StallKind, i: number): Promise<void> {
  return new Promise((resolve) => {
    const options = {
      port: setup.port,
      host: '127.0.0.1',
      localAddress: `127.0.0.${(setup.from ?? 2) + (i % setup.addresses)}`,
    };
    // Devices speak TLS on the plain port too (the control certificate; server/plain_port_tls.ts).
    const overTls = kind === 'held' || kind === 'enroll';
    const socket: Socket = overTls ? tls({ ...options, rejectUnauthorized: false }) : tcp(options);
    sockets.push(socket);
    socket.on('error', () => resolve());
    socket.once('close', () => {
      closed++;
      resolve();
    });
    // The status of an early answer (over the cap, too slow), counted once a connection.
    socket.once('data', (d: Buffer) => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1'))?.[1] ?? 'other';
      answered[status] = (answered[status] ?? 0) + 1;
    });
    socket.once(overTls ? 'secureConnect' : 'connect', () => {
      const bytes = opening(kind, i, setup);
      if (bytes === '') return resolve();
      socket.write(bytes, () => resolve());
    });
  });
}

// The kinds interleaved, so that whichever the server keeps are a mix of them.
const all: StallKind[] = [];
for (let round = 0; all.length < setup.groups.reduce((n, g) => n + g.count, 0); round++)
  for (const g of setup.groups) if (round < g.count) all.push(g.kind);
for (let i = 0; i < all.length; i += 200) {
  await Promise.all(all.slice(i, i + 200).map((kind, j) => open(kind, i + j)));
}
const report = () =>
  process.stdout.write(`${JSON.stringify({ opened: sockets.length, open: sockets.length - closed, answered })}\n`);
report();
createInterface({ input: process.stdin })
  .on('line', report)
  .on('close', () => {
    // A reset leaves no TIME_WAIT on this side; a TLS socket's handle cannot be reset, only closed.
    for (const socket of sockets) {
      if (socket.destroyed) continue;
      if (socket instanceof TLSSocket) socket.destroy();
      else socket.resetAndDestroy();
    }
    process.exit(0);
  });
