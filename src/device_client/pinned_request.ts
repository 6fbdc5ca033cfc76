/**
 * HTTPS to the control plane, trusted only through the pins: the TLS handshake completes, the
 * certificate's SubjectPublicKeyInfo hash is compared with each pin held (the current key's and the
 * next one's, docs/contract.md section 16), and only on a match is a single byte of the request
 * written. There is no fallback to CA trust and no way to skip the check.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type { LookupFunction } from 'node:net';
import { isIP } from 'node:net';
import { connect, type TLSSocket } from 'node:tls';

export class PinMismatchError extends Error {
  readonly code = 'PIN_MISMATCH';
  readonly host: string;
  /** The pins held, current first. */
  readonly expected: readonly string[];
  /** The pin of the key the server presented. */
  readonly actual: string;
  constructor(
    host: string,
    expected: readonly string[],
    actual: string,
    holder = 'the enrollment link pins',
    advice = '',
  ) {
    super(
      `pin mismatch: ${host} presented a certificate with pin ${actual}, but ${holder} ${expected.join(' and ')}${advice}; nothing was sent`,
    );
    this.name = 'PinMismatchError';
    this.host = host;
    this.expected = expected;
    this.actual = actual;
  }
}

export interface PinnedResponse {
  status: number;
  /** Seconds from a `Retry-After` header given as a number, if any. */
  retryAfter?: number | undefined;
  body: Buffer;
  /** The answer's headers (names in lower case). */
  headers: IncomingHttpHeaders;
  /** The pin of the key the server presented: one of the request's pins. */
  pin: string;
}

export interface PinnedRequest {
  url: URL;
  /** The pins trusted (docs/contract.md section 16): the server's key must match one of them. */
  pins: readonly string[];
  method: 'GET' | 'POST' | 'PUT';
  headers: Record<string, string>;
  /** Absent for a GET: then no body and no Content-Length are sent. */
  body?: Uint8Array;
  /** From the start of the connection to the end of the answer; 30 s unless said (a held request needs more). */
  timeoutMs?: number;
  /** Ends the request at once (a device client told to stop): it fails with an AbortError. */
  signal?: AbortSignal | undefined;
  lookup?: LookupFunction | undefined;
}

const RESPONSE_CAP = 65_536;

export function spkiPin(socket: TLSSocket): string {
  const cert = socket.getPeerX509Certificate();
  if (!cert) return 'none';
  return `sha256/${createHash('sha256')
    .update(cert.publicKey.export({ type: 'spki', format: 'der' }))
    .digest('base64')}`;
}

function samePin(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

export async function pinnedRequest(req: PinnedRequest): Promise<PinnedResponse> {
  const host = req.url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(req.url.port || 443);
  const timeout = AbortSignal.timeout(req.timeoutMs ?? 30_000);
  const signal = req.signal ? AbortSignal.any([timeout, req.signal]) : timeout;
  const socket = connect({
    host,
    port,
    ...(isIP(host) ? {} : { servername: host }),
    // The chain is not checked against CAs on purpose: the pin below is the only trust anchor.
    rejectUnauthorized: false,
    ALPNProtocols: ['http/1.1'],
    ...(req.lookup ? { lookup: req.lookup } : {}),
  });
  const abort = () =>
    socket.destroy(
      timeout.aborted
        ? new Error(`no answer from ${req.url.host} in time`)
        : Object.assign(new Error('the request was stopped'), { name: 'AbortError' }),
    );
  signal.addEventListener('abort', abort, { once: true });
  try {
    await once(socket, 'secureConnect', { signal });
    const actual = spkiPin(socket);
    if (!req.pins.some((pin) => samePin(actual, pin))) throw new PinMismatchError(req.url.host, req.pins, actual);
    return await new Promise<PinnedResponse>((resolve, reject) => {
      const r = httpRequest(
        {
          createConnection: () => socket,
          host: req.url.host,
          path: `${req.url.pathname}${req.url.search}`,
          method: req.method,
          headers: {
            ...req.headers,
            host: req.url.host,
            ...(req.body === undefined ? {} : { 'content-length': String(req.body.byteLength) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > RESPONSE_CAP) res.destroy(new Error('response too large'));
            else chunks.push(chunk);
          });
          const retryAfter = /^\d{1,4}$/.test(res.headers['retry-after'] ?? '')
            ? Number(res.headers['retry-after'])
            : undefined;
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              retryAfter,
              body: Buffer.concat(chunks),
              headers: res.headers,
              pin: actual,
            }),
          );
          res.on('error', reject);
        },
      );
      r.on('error', reject);
      r.end(req.body);
    });
  } catch (err) {
    // Where the failure happened, for a message that names the address (cli/transport.ts).
    if (err instanceof Error && !(err instanceof PinMismatchError)) Object.assign(err, { url: req.url });
    throw err;
  } finally {
    signal.removeEventListener('abort', abort);
    socket.destroy();
  }
}
