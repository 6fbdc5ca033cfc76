/**
 * Connections at the cap: a new connection is never refused for being one too many. The server
 * closes instead the one that holds the least: first the connection that has waited longest for a
 * request head (idle keep-alive after an answer, or a client that connected and has not finished
 * sending a head: slow headers), and only when every connection is inside a request, the oldest
 * request. One client holding thousands of sockets thus cannot lock the others out: each new
 * connection pushes out its oldest idle one. Memory stays bounded by the cap (two maps of at
 * most cap + 1 entries, and the sockets themselves).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { getHeapStatistics } from 'node:v8';
import { connectionOf, isHeld } from '../http/held_connections.ts';

/** File descriptors left for everything else: the database, log and data files, outgoing requests. */
const FD_RESERVE = 512;
/**
 * The heap the costliest connection holds, measured (bench/heap_holds.ts; bench/results.md, "Issue
 * 42: the heap holds"): a body in flight on `POST /v1/enroll` over TLS, stalled after 60 KiB of
 * the 64 KiB it declared, 20.0 to 21.0 KiB of live heap across runs, and a device's request held
 * over TLS 19.9 KiB; a stalled form on `/login` about 16 KiB, an idle connection 2.2 KiB. Rounded
 * up past the highest run, so the ceiling errs low.
 */
export const CONNECTION_HEAP_COST = 22 * 1024;
/**
 * The heap's limit kept from connections for the rest of the process: the young generation (three
 * 8 MiB semi-spaces under `npm start`, inside the limit but never where a connection lives for
 * long) and 40 MiB of old space, twice the 20 MiB live at rest, for the pages, uploads and sweeps
 * in flight. The measure of it: with 10,000 requests held over TLS (204 MiB of live heap) in a 256
 * MiB old space, pages and uploads kept their p95 (bench/results.md, issue 35).
 */
const HEAP_RESERVE = 64 * 2 ** 20;
/** The fewest, for a process started with a very low fd limit or a very small heap. */
const CONNECTION_FLOOR = 64;

/**
 * The most connections the heap can hold (docs/contract.md section 23): its limit less the
 * reserve, over the costliest connection. No number of connections then ends the process: each one
 * past it closes the connection that holds the least (shedAtCap).
 */
export function connectionCeiling(heapLimit: number = getHeapStatistics().heap_size_limit): number {
  return Math.max(CONNECTION_FLOOR, Math.floor((heapLimit - HEAP_RESERVE) / CONNECTION_HEAP_COST));
}

/**
 * Connections per process: the open-file limit less a reserve, within the heap's ceiling. Node
 * raises its soft limit to the hard one as it starts, so this is the hard limit of the service's
 * environment (systemd: LimitNOFILE).
 */
export function connectionCap(fdLimit: number = openFileLimit(), heapLimit?: number): number {
  return Math.max(CONNECTION_FLOOR, Math.min(connectionCeiling(heapLimit), fdLimit - FD_RESERVE));
}

/** This process's open-file limit (Linux: /proc/self/limits); 1024 when it cannot be read. */
export function openFileLimit(): number {
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync('/proc/self/limits', 'latin1'))?.[1];
    if (line === 'unlimited') return Number.MAX_SAFE_INTEGER;
    if (line !== undefined) return Number(line);
  } catch {
    // Not Linux: the usual default.
  }
  return 1024;
}

/** Why a connection was closed to make room: it was waiting for a head, or in a request. */
export type Shed = 'waiting' | 'in-request' | 'held';

/**
 * Tracks every connection of `server` and keeps at most `cap` open, closing the one that holds the
 * least when a new one comes. `onShed` is told of each connection closed to make room.
 */
export function shedAtCap(server: Server, cap: number, onShed?: (kind: Shed) => void): { open(): number } {
  // Sets and maps keep insertion order: the first entry of each has been in it longest.
  /** Connections waiting for a request head (new, or idle after an answer). */
  const waiting = new Set<Socket>();
  /** Connections inside a request, with how many of their requests are unanswered (pipelining). */
  const inRequest = new Map<Socket, number>();

  server.on('connection', (socket: Socket) => {
    waiting.add(socket);
    socket.once('close', () => {
      waiting.delete(socket);
      inRequest.delete(socket);
    });
    if (waiting.size + inRequest.size > cap) shed(socket);
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const socket = connectionOf(req.socket);
    if (socket.destroyed) return;
    waiting.delete(socket);
    inRequest.set(socket, (inRequest.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const left = (inRequest.get(socket) ?? 1) - 1;
      if (left > 0) return void inRequest.set(socket, left);
      inRequest.delete(socket);
      // Idle from now: at the end of the waiting line.
      if (!socket.destroyed) waiting.add(socket);
    });
  });

  function shed(newcomer: Socket): void {
    for (const socket of waiting) {
      if (socket === newcomer) break;
      waiting.delete(socket);
      socket.destroy();
      return void onShed?.('waiting');
    }
    // Inside a request: the oldest one not held open by design, and only when there is none, the oldest held.
    for (const heldToo of [false, true]) {
      for (const socket of inRequest.keys()) {
        if (isHeld(socket) && !heldToo) continue;
        inRequest.delete(socket);
        socket.destroy();
        return void onShed?.(isHeld(socket) ? 'held' : 'in-request');
      }
    }
  }
  return { open: () => waiting.size + inRequest.size };
}
