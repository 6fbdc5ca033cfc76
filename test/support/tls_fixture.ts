/**
 * Two host names on loopback with their own certificates, for the one-port TLS tests: admin.test
 * (the console's) and control.test (the devices'), both resolved to 127.0.0.1 by `lookup`.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer, type LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { generateSelfSignedCertificate, type SelfSignedCertificate } from '../../src/tls/self_signed.ts';

export interface TlsFixture {
  dir: string;
  admin: SelfSignedCertificate & { certFile: string; keyFile: string };
  control: SelfSignedCertificate & { certFile: string; keyFile: string };
  lookup: LookupFunction;
}

/** Every `*.test` name is this machine. */
export const lookup: LookupFunction = (hostname, options, callback) => {
  if (!hostname.endsWith('.test')) {
    callback(Object.assign(new Error(`test lookup: unknown host ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    return;
  }
  if ((options as { all?: boolean }).all)
    (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [
      { address: '127.0.0.1', family: 4 },
    ]);
  else callback(null, '127.0.0.1', 4);
};

export async function tlsFixture(): Promise<TlsFixture> {
  const dir = await mkdtemp(join(tmpdir(), 'paddock-tls-'));
  const make = async (name: string) => {
    const pair = generateSelfSignedCertificate({
      commonName: name,
      dnsNames: [name],
      notBefore: new Date(Date.now() - 60_000),
      days: 30,
    });
    const certFile = join(dir, `${name}.crt`);
    const keyFile = join(dir, `${name}.key`);
    await writeFile(certFile, pair.certPem);
    await writeFile(keyFile, pair.keyPem);
    return { ...pair, certFile, keyFile };
  };
  return { dir, admin: await make('admin.test'), control: await make('control.test'), lookup };
}

/** A port that was free a moment ago (the base URL must name it before the server listens). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** An HTTPS request that trusts `ca` and resolves *.test to loopback; returns status, headers, body, peer certificate. */
export function httpsRequest(
  url: string,
  opts: {
    ca: string | string[];
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    servername?: string;
  },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string; certCn: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: opts.headers,
        ca: opts.ca,
        lookup,
        servername: opts.servername,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          const cert = (res.socket as TLSSocket).getPeerCertificate?.();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, certCn: String(cert?.subject?.CN ?? '') });
        });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
