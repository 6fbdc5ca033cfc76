/** The running build's version (package.json), shown on the dashboard and in the health answer. */
import { readFileSync } from 'node:fs';

export const version: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
