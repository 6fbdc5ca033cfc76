/**
 * The listening socket: plain HTTP on loopback, or TLS with two certificates on one port, the
 * control certificate for the control host's server name and the admin certificate for any other.
 * On the plain port a connection that opens with a TLS handshake (a device) is served the control
 * certificate, so the quick start's enrollment links work (issue 23). Requests go to the
 * web-standard handler through @hono/node-server, after an optional fast path.
 */
import {
  createServer as createHttpServer,
  IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Duplex } from 'node:stream';
import { createSecureContext, type SecureContext } from 'node:tls';
import { getRequestListener, type Http2Bindings, type HttpBindings, RequestError } from '@hono/node-server';
import { failureResponse, failureText, FAILURES, type FailureName } from '../http/failures.ts';
import { DEFAULT_CACHE_CONTROL, SECURITY_HEADERS } from '../http/security_headers.ts';
import { noteMessage } from '../http/node_message.ts';
import { ConfigError } from '../config/parse.ts';
import type { PemPair } from '../config/pem.ts';
import { TLS_PROFILE } from '../tls/profile.ts';
import { acceptTlsOnPlainPort } from './plain_port_tls.ts';
import type { FastPath } from './health_fast_path.ts';
import { connectionCap, shedAtCap } from './connections.ts';
import { acceptProxyProtocol, type ProxyProtocolOptions } from './accept_proxy_protocol.ts';
import type { OpenBodies } from './open_bodies.ts';

export interface ListenOptions {
  host: string;
  port: number;
  /** `hsts`: send Strict-Transport-Security (not for a loopback or IP admin host). */
  tls?: { admin: PemPair; controlHost: string; hsts?: boolean } | undefined;
  /**
   * The control certificate as it is now (it is renewed while serving): under TLS, for the control
   * host's server name; without, for every connection that opens with a TLS handshake.
   */
  control?: (() => PemPair) | undefined;
  /** Answers some requests itself (returning true) before the handler sees them. */
  fastPath?: FastPath | undefined;
  /** True once the server is stopping: every answer then closes its connection (no keep-alive). */
  draining?: (() => boolean) | undefined;
  /**
   * Hears the status of each answer written here, before any handler: a request Node's parser
   * refused (`busy` false), or a client over its bodies in flight on the open routes (`busy` true).
   */
  answeredEarly?: ((status: number, busy: boolean) => void) | undefined;
  /** Errors of the listening socket after it started (such as a failed accept). */
  onError?: ((err: Error) => void) | undefined;
  /** Connections kept open at most (see connections.ts); by default from the open-file limit. */
  maxConnections?: number | undefined;
  /** Load balancers that put a PROXY protocol header in front of their connections (see accept_proxy_protocol.ts). */
  proxyProtocol?: ProxyProtocolOptions | undefined;
  /** Bodies in flight before any credential is checked, capped per client (see open_bodies.ts); by default not capped. */
  openBodies?: OpenBodies | undefined;
}

/**
 * Node's own limits, the backstop behind every body's minimum rate (http/body.ts), which answers a
 * slow body 408 within seconds: a head whole within 60 s and a whole request within five minutes
 * (checked every 30 s), whatever a route does. Node's defaults, written out so they are seen: lower,
 * the request timeout would cut off a large run uploaded at a modest but steady rate.
 */
const NODE_TIMEOUTS = { headersTimeout: 60_000, requestTimeout: 300_000, connectionsCheckingInterval: 30_000 };

/** One year, the usual value once a site serves HTTPS only; subdomains are not Paddock's to speak for. */
const HSTS = 'max-age=31536000';

export function listen(
  handler: (req: Request, env: unknown) => Response | Promise<Response>,
  opts: ListenOptions,
): Promise<Server> {
  // A request without Host (HTTP/1.0) is read as addressed to the listen address, as before.
  // Each Request remembers its Node message, from which the body door reads (http/node_message.ts).
  const noted = (req: Request, env: HttpBindings | Http2Bindings) => {
    if (env.incoming instanceof IncomingMessage) noteMessage(req, env.incoming);
    return handler(req, env);
  };
  const adapter = getRequestListener(noted, { hostname: opts.host, errorHandler: adapterError });
  const fast = opts.fastPath;
  const answerEarly = (res: ServerResponse, name: FailureName, headers?: Record<string, string>) => {
    opts.answeredEarly?.(FAILURES[name].status, name === 'openBodiesBusy');
    sendFailure(res, name, headers);
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    // RFC 9112 section 3.2: an HTTP/1.1 request without Host is answered 400 (Node's own answer
    // to it, which is switched off below, carries none of the headers every answer must carry).
    if (req.headers.host === undefined && req.httpVersion === '1.1') return void answerEarly(res, 'badRequest');
    // A Host the URL parser refuses (1.2.3.256, 4294967296, .1) is a bad request, not a failure of
    // ours: the adapter would throw building the Request's URL, which it answers 500.
    if (req.headers.host !== undefined && !URL.canParse(`http://${req.headers.host}/`))
      return void answerEarly(res, 'badRequest');
    // A client with too many bodies in flight on the open routes: told to retry, before its body is read.
    if (opts.openBodies && !opts.openBodies.admit(req, res))
      return void answerEarly(res, 'openBodiesBusy', { 'Retry-After': '1' });
    if (opts.draining?.()) res.setHeader('Connection', 'close');
    if (fast?.(req, res)) return;
    return adapter(req, res);
  };
  const tls = opts.tls;
  const control = opts.control && currentContext(opts.control);
  let server: Server;
  if (tls) {
    const controlHost = tls.controlHost.toLowerCase();
    server = createHttpsServer(
      {
        requireHostHeader: false,
        ...NODE_TIMEOUTS,
        cert: tls.admin.certPem,
        key: tls.admin.keyPem,
        ...TLS_PROFILE,
        // An unknown or absent server name gets the admin certificate (undefined: the default context).
        SNICallback: (servername, done) =>
          done(null, control && servername.toLowerCase() === controlHost ? control() : undefined),
      },
      // Paddock terminates TLS itself here: browsers are told to use nothing else for this name
      // (RFC 6797), so a first plain-HTTP visit cannot be downgraded. Set before any answer's own
      // headers, with which Node merges it.
      tls.hsts
        ? (req: IncomingMessage, res: ServerResponse) => {
            res.setHeader('Strict-Transport-Security', HSTS);
            listener(req, res);
          }
        : listener,
    );
  } else {
    server = createHttpServer({ requireHostHeader: false, ...NODE_TIMEOUTS }, listener);
    if (control) acceptTlsOnPlainPort(server, control);
  }
  // Before anything else reads a connection: its first bytes are a load balancer's header, if any.
  if (opts.proxyProtocol) acceptProxyProtocol(server, opts.proxyProtocol);
  // Each connection costs memory and a file descriptor, so they are capped; but a new one is never
  // refused at the cap (Node's maxConnections would let one client holding the cap's worth of idle
  // sockets lock everyone out): the connection holding the least is closed for it instead.
  shedAtCap(server, opts.maxConnections ?? connectionCap());
  // An Expect other than 100-continue (RFC 9110 section 10.1.1): 417, with the headers of every answer
  // (Node's own 417 carries none of them).
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => answerEarly(res, 'expectationFailed'));
  // A request Node's parser cannot read gets the same plain 400, then the connection is closed.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    // Bytes past a request's declared length that do not parse as the next request: the request
    // before them is still being answered (an upload being stored, say). Its answer goes out first
    // and the connection closes after it, so a client is never told 400 for what was stored.
    const inFlight = (socket as { _httpMessage?: ServerResponse })._httpMessage;
    if (inFlight && !inFlight.writableFinished && err.code !== 'ECONNRESET') {
      inFlight.shouldKeepAlive = false;
      // The client closed its side before the body it declared was whole (issue 34).
      if (err.code === 'HPE_INVALID_EOF_STATE') endCutShortBody(inFlight.req, socket);
      inFlight.once('finish', () => socket.end());
      inFlight.once('close', () => socket.destroy());
      return;
    }
    if (err.code === 'ECONNRESET' || !socket.writable) socket.destroy();
    else {
      const name = CLIENT_ERROR_FAILURES[err.code ?? ''] ?? 'badRequest';
      opts.answeredEarly?.(FAILURES[name].status, false);
      socket.end(RAW_ANSWERS[name]);
    }
  });
  return new Promise<Server>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new ConfigError('PADDOCK_LISTEN', `cannot listen on ${opts.host}:${opts.port}: ${err.code ?? err.message}`),
      ),
    );
    server.listen(opts.port, opts.host, () => {
      server.removeAllListeners('error');
      server.on('error', (err) => opts.onError?.(err));
      resolve(server);
    });
  });
}

/**
 * The client closed its side of the connection inside a request's body (RFC 9112 section 8: an
 * incomplete message), which Node's parser reports and nothing else hears. With a declared length
 * the body's stream ends there, so the route's read (http/body.ts) finds it short of its length at
 * once and answers, instead of waiting out the minimum rate for bytes that cannot come. A chunked
 * body has no length to be held to and would pass for whole: its connection is dropped instead.
 */
function endCutShortBody(req: IncomingMessage, socket: Duplex): void {
  if (req.complete || req.readableEnded) return;
  if (req.headers['content-length'] === undefined) return void socket.destroy();
  // Nothing more will be parsed. Marked complete so that the stream's end does not take the
  // connection with it (Node destroys the socket of a message destroyed incomplete), which must
  // still carry the answer.
  req.complete = true;
  req.push(null);
}

/** A secure context for the pair as it is now, made again only when the certificate changed. */
function currentContext(pair: () => PemPair): () => SecureContext {
  let made: { certPem: string; context: SecureContext } | undefined;
  return function controlContext() {
    const { certPem, keyPem } = pair();
    if (made?.certPem !== certPem)
      made = { certPem, context: createSecureContext({ cert: certPem, key: keyPem, ...TLS_PROFILE }) };
    return made.context;
  };
}

const PLAIN_HEADERS = {
  'Content-Type': 'text/plain; charset=UTF-8',
  ...SECURITY_HEADERS,
  'Cache-Control': DEFAULT_CACHE_CONTROL,
  Connection: 'close',
};

/** A named failure written straight to Node's response, and the connection closed after it. */
function sendFailure(res: ServerResponse, name: FailureName, headers: Record<string, string> = {}): void {
  const body = failureText(name);
  res.writeHead(FAILURES[name].status, {
    ...PLAIN_HEADERS,
    ...headers,
    'Content-Length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

/** A whole plain-text answer written straight to the socket, for what never became a request. */
function rawAnswer(name: FailureName): string {
  const { status } = FAILURES[name];
  const body = failureText(name);
  const headers = { ...PLAIN_HEADERS, 'Content-Length': String(Buffer.byteLength(body)) };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return [`HTTP/1.1 ${status} ${STATUS_CODES[status]}`, ...lines, '', body].join('\r\n');
}

/** Node's own choices of status for what its parser refuses; anything else it refuses is a bad request. */
const CLIENT_ERROR_FAILURES: Record<string, 'headersTooLarge' | 'requestTimeout'> = {
  HPE_HEADER_OVERFLOW: 'headersTooLarge',
  ERR_HTTP_REQUEST_TIMEOUT: 'requestTimeout',
};
/** Those answers, with the headers of every answer, written once. */
const RAW_ANSWERS = {
  badRequest: rawAnswer('badRequest'),
  headersTooLarge: rawAnswer('headersTooLarge'),
  requestTimeout: rawAnswer('requestTimeout'),
};

/**
 * What the adapter answers when it cannot make a Request of what came in (a backslash in the path,
 * a Host that is not a host, HTTP/1.1 without Host): 400, plain text, with the headers of every
 * other answer. Anything else it catches is a 500 without details.
 */
function adapterError(err: unknown): Response {
  return failureResponse(err instanceof RequestError ? 'badRequest' : 'internal');
}
