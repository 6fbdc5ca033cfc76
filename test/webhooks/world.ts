/**
 * What the webhook tests share: receivers on loopback that record each delivery and verify it
 * with the `standardwebhooks` library (as a receiver would), a store with an endpoint, a sender.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { systemClock } from '../../src/clock.ts';
import type { Actor } from '../../src/domain/accounts.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import type { Store } from '../../src/store/store.ts';
import { createWebhook, type WebhookDeps } from '../../src/actions/webhooks.ts';
import { webhookSender, type SenderOptions } from '../../src/webhooks/sender.ts';
import { randomBytes } from 'node:crypto';

export const ADMIN: Actor = { subject: 'local:admin', admin: true, client: '192.0.2.1' };

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  /** What the library made of it: the parsed payload. */
  payload: { type: string; timestamp: string; data: Record<string, unknown> };
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Every request, verified or not. */
  hits: number;
  close(): Promise<void>;
  /** Resolves once `n` verified deliveries arrived. */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>;
}

/**
 * A receiver: `answer` decides each request's status (default 200), or returns 'hang' to never
 * answer; every delivery must verify with each of `secrets` (several after a rotation).
 */
export async function receiver(
  secrets: () => readonly string[],
  answer: (n: number, req: IncomingMessage, res: ServerResponse) => number | 'hang' | 'handled' = () => 200,
  tls?: { certPem: string; keyPem: string },
): Promise<Receiver> {
  const received: Received[] = [];
  const waiters: Array<() => void> = [];
  let hits = 0;
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const n = hits++;
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(req.headers['webhook-id']),
        'webhook-timestamp': String(req.headers['webhook-timestamp']),
        'webhook-signature': String(req.headers['webhook-signature']),
      };
      for (const secret of secrets()) {
        const payload = new Webhook(secret).verify(body, headers) as Received['payload'];
        received.push({
          id: headers['webhook-id'],
          timestamp: headers['webhook-timestamp'],
          signature: headers['webhook-signature'],
          body,
          payload,
        });
      }
      for (const w of waiters.splice(0)) w();
      const status = answer(n, req, res);
      if (status === 'hang' || status === 'handled') return;
      res.writeHead(status).end();
    });
  };
  const server: Server = tls
    ? createHttpsServer({ cert: tls.certPem, key: tls.keyPem }, handler)
    : createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}/hook`,
    received,
    get hits() {
      return hits;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    async waitFor(n, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        const left = deadline - Date.now();
        assert.ok(left > 0, `waited for ${n} deliveries, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, Math.min(left, 100));
        });
      }
      return received;
    },
  };
}

/** Polls `done` every 50 ms until it holds or `timeoutMs` passes; the test's own assertions say which. */
export async function until(done: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done()) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}

export const SEAL_KEY = randomBytes(32);

export function webhookDeps(
  store: Store,
  logger = memoryLogger(),
): WebhookDeps & { logger: ReturnType<typeof memoryLogger> } {
  return { store, logger, clock: systemClock, sealKey: SEAL_KEY, allowPrivate: true };
}

/** Adds an endpoint; its id and secret. */
export async function endpoint(store: Store, url: string, events: string[] = ['*']) {
  const made = await createWebhook(webhookDeps(store), ADMIN, { url, events, description: 'test' });
  assert.ok(made.ok, made.ok ? '' : made.reason);
  return { id: made.webhook.id, secret: made.secret };
}

export function sender(store: Store, opts: Partial<SenderOptions> = {}) {
  const logger = memoryLogger();
  return {
    logger,
    sender: webhookSender({
      store,
      logger,
      clock: systemClock,
      sealKey: SEAL_KEY,
      allowPrivate: true,
      disableAfterMs: 5 * 86_400_000,
      retentionMs: 30 * 86_400_000,
      pollMs: 50,
      retryDelaysMs: [50, 50, 50],
      ...opts,
    }),
  };
}

export async function enrolled(store: Store, id: string): Promise<void> {
  await store.createEnrollToken({
    hash: `tok-${id}`,
    owner: 'local:admin',
    createdBy: 'local:admin',
    createdAt: Date.now(),
    expiresAt: Date.now() + 60_000,
  });
  assert.ok(
    await store.enrollDevice({
      tokenHash: `tok-${id}`,
      now: Date.now(),
      deviceId: id,
      name: id,
      credentialHash: `c-${id}`,
    }),
  );
}
