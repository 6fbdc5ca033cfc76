/**
 * The control API alone, for bench/audit_uploads.ts: on a SQLite store in the given directory,
 * logging to nowhere, with the audit decorator of `paddock serve` (`audit`), with its metrics
 * (`metrics`: the request middleware and the counting subscriber), or with neither (`plain`). Prints `listening <port>` once it accepts uploads; SIGTERM stops it.
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

const [dataDir, mode] = process.argv.slice(2);
if (dataDir === undefined || (mode !== 'audit' && mode !== 'plain' && mode !== 'metrics'))
  throw new Error('usage: audit_server.ts <dir> audit|metrics|plain');
const store = openSqliteStore(dataDir);
// Records are formatted as `paddock serve` formats them, then dropped: the bench measures Paddock, not a pipe.
const inner = jsonLogger('info', () => undefined);
const metrics =
  mode === 'metrics' ? createMetrics({ store, clock: systemClock, staleAfterMs: 30 * 86_400_000 }) : undefined;
const logger =
  mode === 'audit'
    ? auditLogger(inner, store, systemClock)
    : metrics === undefined
      ? inner
      : eventBus(inner, metrics.subscriber);
const control = createControlApp({ store, logger, clock: systemClock, metrics });
const server = await listen((req, env) => control.fetch(req, env), { host: '127.0.0.1', port: 0 });
process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
process.once('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => void store.close().then(() => process.exit(0)));
});
