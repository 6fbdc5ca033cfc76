/**
 * The Node message under each web-standard Request that server/listen.ts hands to the handler, so
 * that the body door (body.ts) reads a long body's bytes straight from it. The web stream the
 * adapter would build in between costs about 9 KiB of heap a body in flight (a stalled body: 16.3
 * KiB against 7.1 on a bare node:http server; docs/decisions.md, "Issue 42: the heap holds").
 */
import type { IncomingMessage } from 'node:http';

const messages = new WeakMap<Request, IncomingMessage>();

/** Records that `req` was made from `incoming` (server/listen.ts, for every request). */
export function noteMessage(req: Request, incoming: IncomingMessage): void {
  messages.set(req, incoming);
}

/** The Node message `req` was made from, unless it came another way (a test's own Request). */
export function messageOf(req: Request): IncomingMessage | undefined {
  return messages.get(req);
}
