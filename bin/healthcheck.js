#!/usr/bin/env node
// The container's HEALTHCHECK: GET /healthz on the address `paddock serve` listens on, with the
// console's host name (the server tells its two sides apart by it), over TLS when it is configured.
// Exit 0 when it answers 200, 1 otherwise. No dependency, no shell, no curl in the image.
import { request as http } from 'node:http';
import { request as https } from 'node:https';
import process from 'node:process';
import { URL } from 'node:url';

const listen = process.env.PADDOCK_LISTEN || '127.0.0.1:8080';
const at = listen.lastIndexOf(':');
const host = listen.slice(0, at).replace(/^\[|\]$/g, '');
const port = Number(listen.slice(at + 1));
// A wildcard address is reached on loopback.
const address = host === '0.0.0.0' || host === '' ? '127.0.0.1' : host === '::' ? '::1' : host;
const tls = Boolean(process.env.PADDOCK_TLS_CERT);
const base = process.env.PADDOCK_BASE_URL;
const name = base ? new URL(base).host : `${host.includes(':') ? `[${host}]` : host}:${port}`;
const request = tls ? https : http;
const req = request(
  {
    host: address,
    port,
    path: '/healthz',
    headers: { host: name },
    servername: tls ? new URL(`https://${name}`).hostname : undefined,
    // The certificate is for the console's name, checked by browsers; here only liveness matters.
    rejectUnauthorized: false,
    timeout: 4000,
  },
  (res) => {
    res.resume();
    process.exitCode = res.statusCode === 200 ? 0 : 1;
  },
);
req.on('timeout', () => req.destroy(new Error('timeout')));
req.on('error', () => (process.exitCode = 1));
req.end();
