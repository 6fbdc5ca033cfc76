/**
 * The configuration `paddock serve` reads, for the commands that run on the server (serve,
 * set-admin-password, reset-admin-totp): a bad setting is one line on stderr naming the variable,
 * and exit status 2 (docs/contract.md section 2), before anything is done.
 */
import { type Config, loadConfig } from '../config/config.ts';
import { ConfigError } from '../config/parse.ts';

/** The configuration, or undefined once the line that says what is wrong has been written. */
export function serverConfig(): Config | undefined {
  try {
    return loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`paddock: ${err.message}\n`);
    return undefined;
  }
}
