/**
 * A child process of bench/collections.ts: devices holding their requests open over TLS
 * (`GET /v1/requests?wait=`, docs/contract.md section 15), one connection each, spread over the
 * loopback addresses 127.0.0.2 to 127.0.0.9 so that ten thousand are never short of ephemeral ports,
 * in a process of their own so that the bench's file descriptors and memory are not the servers'.
 *
 * Argument: a JSON file `{ port, servername, host, ca, wait, reask, credentials }` (`host` is the
 * Host header; `reask`: an empty answer, its wait passed, is asked again at once on the same
 * connection). A failed ask (an answer other than 200 or 401, or a lost connection) is asked again
 * as the reference client does (`paddock device watch`, src/device_client/backoff.ts): after 1 s
 * doubling to 60 s, each wait a random half to whole of it, or the server's Retry-After.
 *
 * Commands on stdin and their answers on stdout, one JSON line each:
 *
 * - `{"cmd":"hold"}`: every device not holding a request asks, opening its connection if it has
 *   none (250 handshakes at a time); answered `{"sent", "errors"}` once every connection is up.
 * - `{"cmd":"await","what":"request"|"answer","timeoutMs"}`: answered once every device received a
 *   request (a non-empty list) or any answer since its last ask, or the timeout passed:
 *   `{"received", "at": [epoch ms of each, by device], "statuses", "errors"}` (the answers' statuses
 *   and the failed connections since the last `mark`).
 * - `{"cmd":"mark"}`: answered `{"marked": true}`; `await` counts statuses and errors from here.
 *
 * When stdin ends, every connection is closed and the process exits.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { createInterface } from 'node:readline';
import type { TLSSocket } from 'node:tls';
import { retryDelay } from '../src/device_client/backoff.ts';

interface Setup {
  port: number;
  servername: string;
  host: string;
  ca: string;
  wait: number;
  reask: boolean;
  credentials: string[];
}

const setup = JSON.parse(readFileSync(process.argv[2] ?? '', 'utf8')) as Setup;

interface DeviceState {
  agent: Agent;
  socket: TLSSocket | undefined;
  /** An ask is in flight (sent, not answered). */
  asking: boolean;
  /** When the last ask was answered with a request (epoch ms), or with anything (`answeredAt`). */
  receivedAt: number | undefined;
  answeredAt: number | undefined;
  /** Failed asks in a row (the back-off's count). */
  failures: number;
}

const devices: DeviceState[] = setup.credentials.map(() => ({
  // One connection a device, kept alive between its asks; no TLS session shared between devices.
  agent: new Agent({ keepAlive: true, maxSockets: 1, maxCachedSessions: 0 }),
  socket: undefined,
  asking: false,
  receivedAt: undefined,
  answeredAt: undefined,
  failures: 0,
}));
const statuses = new Map<number, number>();
let errors = 0;
let stopping = false;
/** Asks waiting for their back-off to pass. */
const retrying = new Set<NodeJS.Timeout>();

/** Asks again after the reference client's back-off. */
function retry(i: number, device: DeviceState, retryAfterS: number | undefined): void {
  device.failures++;
  device.asking = true;
  const timer = setTimeout(
    () => {
      retrying.delete(timer);
      if (!stopping) void ask(i);
    },
    retryDelay(device.failures, retryAfterS),
  );
  retrying.add(timer);
}
/** Waiters of `await`, checked after each answer. */
let onAnswer: (() => void) | undefined;

/** Asks once; resolves when the ask's connection is up (its bytes are then written), or it failed. */
function ask(i: number): Promise<void> {
  const device = devices[i];
  const credential = setup.credentials[i];
  if (!device || credential === undefined) return Promise.resolve();
  device.asking = true;
  return new Promise<void>((connected) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: setup.port,
        servername: setup.servername,
        localAddress: `127.0.0.${2 + (i % 8)}`,
        ca: setup.ca,
        agent: device.agent,
        path: `/v1/requests?wait=${setup.wait}`,
        headers: { host: setup.host, authorization: `Bearer ${credential}` },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (d: Buffer) => chunks.push(d));
        res.on('end', () => {
          const at = Date.now();
          device.asking = false;
          const status = res.statusCode ?? 0;
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          if (status !== 200 && status !== 401) {
            const after = res.headers['retry-after'];
            return retry(i, device, after !== undefined && /^\d{1,4}$/.test(after) ? Number(after) : undefined);
          }
          device.failures = 0;
          device.answeredAt = at;
          let requests = 0;
          if (status === 200) {
            try {
              requests = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { requests: unknown[] }).requests
                .length;
            } catch {
              errors++;
            }
          }
          if (requests > 0) device.receivedAt = at;
          else if (status === 200 && setup.reask && !stopping) void ask(i);
          onAnswer?.();
        });
      },
    );
    req.on('socket', (socket) => {
      const tls = socket as TLSSocket;
      device.socket = tls;
      // A new connection: up once its handshake is done; a kept-alive one is up already.
      if (tls.connecting || !(tls as unknown as { _secureEstablished?: boolean })._secureEstablished)
        tls.once('secureConnect', () => connected());
      else connected();
    });
    req.on('error', () => {
      errors++;
      connected();
      if (!stopping) retry(i, device, undefined);
    });
    req.end();
  });
}

async function hold(): Promise<void> {
  const before = errors;
  for (const d of devices) d.receivedAt = d.answeredAt = undefined;
  const idle = devices.flatMap((d, i) => (d.asking ? [] : [i]));
  for (let at = 0; at < idle.length; at += 250) await Promise.all(idle.slice(at, at + 250).map((i) => ask(i)));
  reply({ sent: idle.length, errors: errors - before });
}

/** The answers' statuses and the errors since `mark` (or the start), for `await`. */
let statusesBefore = new Map<number, number>();
let errorsBefore = 0;

function awaitAll(what: 'request' | 'answer', timeoutMs: number): void {
  const done = () =>
    devices.every((d) => (what === 'request' ? d.receivedAt !== undefined : d.answeredAt !== undefined));
  const finish = () => {
    clearTimeout(timer);
    onAnswer = undefined;
    const at = devices.map((d) => (what === 'request' ? d.receivedAt : d.answeredAt) ?? null);
    const since = [...statuses].map(([status, n]) => [status, n - (statusesBefore.get(status) ?? 0)]);
    reply({
      received: at.filter((t) => t !== null).length,
      at,
      statuses: Object.fromEntries(since.filter(([, n]) => n !== 0)),
      errors: errors - errorsBefore,
    });
  };
  const timer = setTimeout(finish, timeoutMs);
  if (done()) return finish();
  onAnswer = () => {
    if (done()) finish();
  };
}

function reply(message: object): void {
  process.stdout.write(`${JSON.stringify(message)}\n`);
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const command = JSON.parse(line) as { cmd: string; what?: 'request' | 'answer'; timeoutMs?: number };
  if (command.cmd === 'hold') void hold();
  else if (command.cmd === 'mark') {
    statusesBefore = new Map(statuses);
    errorsBefore = errors;
    reply({ marked: true });
  } else if (command.cmd === 'await') awaitAll(command.what ?? 'request', command.timeoutMs ?? 60_000);
});
process.stdin.once('end', () => {
  stopping = true;
  for (const timer of retrying) clearTimeout(timer);
  for (const d of devices) d.socket?.destroy();
  process.exit(0);
});
