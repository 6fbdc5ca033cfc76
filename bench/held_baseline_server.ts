/**
 * The held requests' memory baseline (bench/collections.ts): a bare `node:https` server with the
 * same certificate and key as Paddock's control host (ECDSA P-256) and the same TLS profile, that
 * holds every request until its `wait` passes (`?wait=` seconds, as `GET /v1/requests`) and then
 * answers an empty list. `GET /held` (not held) answers how many are held now. Run with the server's
 * V8 flags and malloc settings (bench/baseline.ts). Arguments: the certificate and key files.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLS_PROFILE } from '../src/tls/profile.ts';

const [certFile = '', keyFile = ''] = process.argv.slice(2);
const EMPTY = Buffer.from('{"requests":[]}');
let held = 0;

const server = createServer(
  { cert: readFileSync(certFile), key: readFileSync(keyFile), ...TLS_PROFILE },
  (req, res) => {
    if (req.url === '/held') return void res.end(String(held));
    const wait = Number(/[?&]wait=(\d+)/.exec(req.url ?? '')?.[1] ?? 0);
    held++;
    const answer = () => {
      held--;
      clearTimeout(timer);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': EMPTY.length });
      res.end(EMPTY);
    };
    const timer = setTimeout(answer, wait * 1000);
    res.once('close', () => {
      if (!res.writableEnded) {
        held--;
        clearTimeout(timer);
      }
    });
  },
);
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
