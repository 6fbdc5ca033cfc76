/**
 * The control API alone, for bench/audit_uploads.ts: on a SQLite store in the given directory,
 * logging to nowhere, with the audit decorator of `paddock serve` (`audit`), with its metrics
 * (`metrics`: the request middleware and the counting subscriber), with the webhook sender
 * (`webhooks`: it delivers whatever endpoints the store holds, loopback allowed), or with none
 * (`plain`). Prints `listening <port>` once it accepts uploads; SIGTERM stops it.
 */
import type { AddressInfo } from 'node:net';
import { auditLogger } from '../src/audit/audit_logger.ts';
import { systemClock } from '../src/clock.ts';
import { createControlApp } from '../src/control/app.ts';
import { eventBus } from '../src/events/bus.ts';
import { jsonLogger } from '../src/log/logger.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { listen } from '../src/server/listen.ts';
import { openSqliteStore } from '../src/store/sqlite/store.ts';
import { webhookSealKey } from '../src/webhooks/key.ts';
import { type Sender, webhookSender } from '../src/webhooks/sender.ts';

const [dataDir, mode] = process.argv.slice(2);
if (dataDir === undefined || (mode !== 'audit' && mode !== 'plain' && mode !== 'metrics' && mode !== 'webhooks'))
  throw new Error('usage: audit_server.ts <dir> audit|metrics|webhooks|plain');
const store = openSqliteStore(dataDir);
// Records are formatted as `paddock serve` formats them, then dropped: the bench measures Paddock, not a pipe.
const inner = jsonLogger('info', () => undefined);
const metrics =
  mode === 'metrics' ? createMetrics({ store, clock: systemClock, staleAfterMs: 30 * 86_400_000 }) : undefined;
let sender: Sender | undefined;
const logger =
  mode === 'audit'
    ? auditLogger(inner, store, systemClock)
    : mode === 'webhooks'
      ? eventBus(inner, { hear: (event, fields) => sender?.subscriber.hear(event, fields) })
      : metrics === undefined
        ? inner
        : eventBus(inner, metrics.subscriber);
if (mode === 'webhooks') {
  sender = webhookSender({
    store,
    logger,
    clock: systemClock,
    sealKey: await webhookSealKey(store),
    allowPrivate: true,
    disableAfterMs: 5 * 86_400_000,
    retentionMs: 30 * 86_400_000,
  });
  sender.start();
}
const control = createControlApp({ store, logger, clock: systemClock, metrics });
const server = await listen((req, env) => control.fetch(req, env), { host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void (sender?.stop() ?? Promise.resolve()).then(() => store.close()).then(() => process.exit(0)));
});
