/** `paddock serve`: a bad setting exits 2 with one line naming it; SIGINT/SIGTERM drain and exit 0. */
import { flushCompileCache } from 'node:module';
import { ConfigError } from '../config/parse.ts';
import { jsonLogger } from '../log/logger.ts';
import { holdPidFile } from '../server/pid_file.ts';
import { startServer } from '../server/serve.ts';
import { EVENTS } from '../events/catalogue.ts';
import { serverConfig } from './server_config.ts';

export async function serveCommand(): Promise<number> {
  const config = serverConfig();
  if (config === undefined) return 2;
  const logger = jsonLogger(config.logLevel);
  let server;
  try {
    server = await startServer(config, { logger });
  } catch (err) {
    // A data directory, database or listen address that cannot be used is a bad setting too.
    if (err instanceof ConfigError) {
      process.stderr.write(`paddock: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`paddock: cannot start: ${(err as Error).message}\n`);
    return 1;
  }
  // Everything a request needs is loaded now: keep it for the next start even if this one is killed.
  flushCompileCache();
  // `paddock restore` refuses to replace a SQLite store while this file names a live server.
  const release = config.databaseUrl === undefined ? holdPidFile(config.dataDir) : () => undefined;
  // The handlers go in before the line that says the server is ready: a supervisor (or a test)
  // that stops it as soon as it reads that line must get a drain and exit 0, not Node's default
  // death by signal.
  const stopped = new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  // SIGHUP loads the control key from the store at once (after paddock rotate-control-key), rather
  // than at the next reload; it does not stop the server.
  const running = server;
  const reload = () => void running.reloadControl();
  process.on('SIGHUP', reload);
  process.stderr.write(`paddock: serving on ${server.url} (console at ${server.baseUrl.replace(/\/$/, '')}/)\n`);
  await stopped;
  process.off('SIGHUP', reload);
  await server.close();
  release();
  logger.emit(EVENTS.serverStopped, {});
  return 0;
}
