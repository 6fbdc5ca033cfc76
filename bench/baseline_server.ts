/** A raw node:http server that answers every request with one file's bytes: the baseline. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const [file = '', contentType = 'text/plain'] = process.argv.slice(2);
const bytes = readFileSync(file);
const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
  res.end(bytes);
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
