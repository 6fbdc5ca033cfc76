/**
 * A failed connection in one line a person can act on: what went wrong at which address, and what
 * to do about it, instead of the system's error code. Used by the admin CLI (fetch, whose error
 * carries the code in its cause) and the reference device client (Node's own sockets).
 */

/** The system's or OpenSSL's error code of a failed request, looking through `cause`. */
export function errorCode(err: unknown): string | undefined {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === 'string' && e.code !== 'UND_ERR_SOCKET') return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

const UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
]);

const NOT_TLS = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
  'EPROTO',
]);

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

export interface Advice {
  /** How a certificate is made trusted for this command (the admin CLI: NODE_EXTRA_CA_CERTS). */
  trust: string;
  /** What to do when an https:// address answers in plain HTTP. */
  plain: (url: URL) => string;
  /** Whether an untrusted certificate on this machine may be the quick start's plain port (the admin CLI). */
  plainPort?: boolean;
  /** What should be answering there; `paddock serve` unless said. */
  service?: string;
}

/** What went wrong reaching `url`, and what to do. Unknown failures keep the system's words. */
export function transportFailure(err: unknown, url: URL, advice: Advice): string {
  const code = errorCode(err);
  const where = url.origin;
  if ((err as { name?: string }).name === 'TimeoutError')
    return `${where} did not answer in time; is the address right, and is ${advice.service ?? 'paddock serve'} running there?`;
  if (code && NOT_TLS.has(code) && url.protocol === 'https:')
    return `the server at ${where} does not speak TLS; ${advice.plain(url)}`;
  if (code && UNTRUSTED.has(code)) {
    const why = code === 'DEPTH_ZERO_SELF_SIGNED_CERT' ? 'self-signed' : 'unknown issuer';
    // The quick start's plain port also speaks TLS, with the devices' certificate: an https://
    // address there reaches it, but the console and the API are meant over http:// on that port.
    const quickStart =
      advice.plainPort && LOOPBACK.test(url.hostname)
        ? `, or, if this is the plain port of the quick start, ${advice.plain(url)}`
        : '';
    return `the certificate of ${where} is not trusted (${why}); ${advice.trust}${quickStart}`;
  }
  if (code === 'CERT_HAS_EXPIRED') return `the certificate of ${where} has expired; renew it on the server`;
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return `the certificate of ${where} does not name ${url.hostname}; use the name the certificate was issued for`;
  if (code === 'ECONNREFUSED')
    return `nothing answers at ${where}; is ${advice.service ?? 'paddock serve'} running, and on this port?`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return `cannot find the host ${url.hostname}; check the address (is it spelled right?)`;
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
    return `${where} closed the connection; is it ${advice.service ?? 'paddock serve'}, and http:// or https:// as it serves?`;
  const e = err as { message?: string; cause?: { message?: string } };
  return `cannot reach ${where}: ${code ?? e.cause?.message ?? e.message ?? String(err)}`;
}
