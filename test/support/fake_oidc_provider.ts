/**
 * A fake OpenID Connect provider for tests: a real HTTP server on 127.0.0.1 that publishes a
 * discovery document and a key set, and trades authorization codes for identity tokens signed
 * with real keys (`jose`). Knobs in `behaviour` make it misbehave in every way the relying party
 * must survive: OpenID Connect Core 1.0 section 3.1.3.7 (token validation) and the token
 * exchange rules (status, body shape, size cap, timeout).
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CompactSign, exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';
import type { Clock } from '../../src/clock.ts';
import { createOidcClient, type OidcClient } from '../../src/oidc/client.ts';

export interface FakeProvider {
  /** e.g. http://127.0.0.1:PORT (no trailing slash). */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Every request the provider received: method, path, headers, parsed form body (for POST /token). */
  requests: Array<{
    method: string;
    path: string;
    headers: Record<string, string | string[] | undefined>;
    form?: Record<string, string>;
  }>;
  /** Registers an authorization code as if the user had signed in; returns the code. Claims override/extend the defaults for that code's id_token. */
  issueCode(opts?: { claims?: Record<string, unknown>; codeChallenge?: string }): string;
  /** Behaviour knobs, mutable between requests. */
  behaviour: Behaviour;
  /** Rotates the signing key: new key with a new kid is used for signing and published in the JWKS (old one dropped unless keepOld). */
  rotateKey(opts?: { keepOld?: boolean }): Promise<void>;
  /** Signs arbitrary claims/header with the current key (or an HMAC key / alg 'none' for attack tests). */
  sign(
    claims: Record<string, unknown>,
    opts?: { alg?: string; kid?: string; hmacSecret?: Uint8Array; unsecured?: boolean; typ?: string | null },
  ): Promise<string>;
  close(): Promise<void>;
}

export interface Behaviour {
  /** 'down': destroy the socket without answering. */
  discovery: 'ok' | 'status500' | 'badJson' | 'wrongIssuer' | 'down';
  /**
   * 'hang': never answer (the client must time out); 'huge': a 200 JSON body of about 2 MiB,
   * streamed without Content-Length, valid JSON with a valid id_token at the end; 'destroy':
   * destroy the socket without answering.
   */
  token:
    | 'ok'
    | 'status400'
    | 'status500'
    | 'badJson'
    | 'badJsonToken'
    | 'notObject'
    | 'noIdToken'
    | 'emptyIdToken'
    | 'hang'
    | 'huge'
    | 'destroy';
  idToken:
    | 'ok'
    | 'wrongIss'
    | 'wrongAud'
    | 'multiAudNoAzp'
    | 'multiAudWrongAzp'
    | 'multiAudGoodAzp'
    | 'audArrayOfOne'
    | 'longSub'
    | 'controlInSub'
    | 'expired'
    | 'noExp'
    | 'noIat'
    | 'noSub'
    | 'nonce'
    | 'algNone'
    | 'hs256'
    | 'unknownKid'
    | 'badSignature'
    | 'futureIat';
  /** Signing algorithm used for 'ok' tokens. */
  idTokenAlg: 'RS256' | 'ES256';
  /** id_token_signing_alg_values_supported published in discovery; default ['RS256', 'ES256']. */
  algsSupported: string[];
}

/** The audience that shares multi-audience tokens with our client. */
export const OTHER_CLIENT_ID = 'other-client';
/** The `iss` of 'wrongIss' tokens. */
export const WRONG_ISSUER = 'https://impostor.example';
/** Token lifetime (seconds) of the default claims. */
export const TOKEN_LIFETIME_S = 300;
/** Size of the 'huge' token response body, comfortably above a 1 MiB cap. */
export const HUGE_BODY_BYTES = 2 * 1024 * 1024;

type SignAlg = 'RS256' | 'ES256';
interface SigningKey {
  kid: string;
  alg: SignAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
}
interface IssuedCode {
  claims: Record<string, unknown>;
  codeChallenge: string | undefined;
  used: boolean;
}

const FORM_TYPE = 'application/x-www-form-urlencoded';
const MAX_FORM_BYTES = 64 * 1024;

function randomId(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

function b64urlJson(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

async function newKey(alg: SignAlg, kidPrefix: string): Promise<SigningKey> {
  const { privateKey, publicKey } =
    alg === 'RS256' ? await generateKeyPair('RS256', { modulusLength: 2048 }) : await generateKeyPair('ES256');
  const kid = `${kidPrefix}-${alg.toLowerCase()}-${randomId(6)}`;
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJwk };
}

/** Flips one bit in the middle of a JWS signature (decoded, so base64 padding bits cannot hide it). */
function corruptSignature(jws: string): string {
  const [header, payload, signature] = jws.split('.');
  const bytes = Buffer.from(signature ?? '', 'base64url');
  const i = Math.floor(bytes.length / 2);
  bytes[i] = (bytes[i] ?? 0) ^ 0x01;
  return `${header}.${payload}.${bytes.toString('base64url')}`;
}

/** Parses a form body; undefined if a parameter is repeated (RFC 6749 section 3.2). */
function parseForm(body: string): Record<string, string> | undefined {
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(body)) {
    if (Object.hasOwn(form, name)) return undefined;
    form[name] = value;
  }
  return form;
}

async function readBody(req: IncomingMessage, cap: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  let tooBig = false;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > cap) tooBig = true;
    else chunks.push(chunk);
  }
  return tooBig ? undefined : Buffer.concat(chunks).toString('utf8');
}

function sendJson(res: ServerResponse, status: number, body: unknown, extra?: Record<string, string>) {
  sendText(res, status, JSON.stringify(body), 'application/json', extra);
}

function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  type = 'text/plain; charset=utf-8',
  extra?: Record<string, string>,
) {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    ...extra,
  });
  res.end(body);
}

export async function startFakeProvider(opts?: {
  now?: () => number /* ms since epoch, for iat/exp */;
  clientId?: string;
  clientSecret?: string;
}): Promise<FakeProvider> {
  const now = opts?.now ?? (() => Date.now());
  const clientId = opts?.clientId ?? 'paddock-test';
  const clientSecret = opts?.clientSecret ?? 'test-secret';

  let generation = 1;
  let current = {
    RS256: await newKey('RS256', `k${generation}`),
    ES256: await newKey('ES256', `k${generation}`),
  };
  let published: JWK[] = [current.RS256.publicJwk, current.ES256.publicJwk];
  /** Keys whose kid is never published, for 'unknownKid' (made on first use). */
  const strayKeys: Partial<Record<SignAlg, SigningKey>> = {};

  const codes = new Map<string, IssuedCode>();
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendText(res, 500, `fake provider error: ${String(err)}`);
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  function discoveryDocument(iss: string) {
    return {
      issuer: iss,
      authorization_endpoint: `${issuer}/authorize`,
      token_endpoint: `${issuer}/token`,
      jwks_uri: `${issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: [...provider.behaviour.algsSupported],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post'],
    };
  }

  async function sign(
    claims: Record<string, unknown>,
    signOpts?: { alg?: string; kid?: string; hmacSecret?: Uint8Array; unsecured?: boolean; typ?: string | null },
  ): Promise<string> {
    const kidHeader = signOpts?.kid !== undefined ? { kid: signOpts.kid } : {};
    // `typ: null` leaves the header out; a logout token's is `logout+jwt`.
    const typ = signOpts?.typ === null ? {} : { typ: signOpts?.typ ?? 'JWT' };
    if (signOpts?.unsecured || signOpts?.alg === 'none') {
      return `${b64urlJson({ alg: 'none', ...kidHeader })}.${b64urlJson(claims)}.`;
    }
    const payload = new TextEncoder().encode(JSON.stringify(claims));
    const alg = signOpts?.alg ?? (signOpts?.hmacSecret ? 'HS256' : provider.behaviour.idTokenAlg);
    if (/^HS(256|384|512)$/.test(alg)) {
      const secret = signOpts?.hmacSecret ?? new TextEncoder().encode(clientSecret);
      return new CompactSign(payload).setProtectedHeader({ alg, ...typ, ...kidHeader }).sign(secret);
    }
    let key: SigningKey;
    if (alg === 'RS256') key = current.RS256;
    else if (alg === 'ES256') key = current.ES256;
    else throw new Error(`fake provider cannot sign with ${alg}`);
    return new CompactSign(payload)
      .setProtectedHeader({ alg, ...typ, kid: key.kid, ...kidHeader })
      .sign(key.privateKey);
  }

  /** The id_token for a redeemed code, mutated per `behaviour.idToken`. */
  async function idTokenFor(code: IssuedCode): Promise<string> {
    const nowS = Math.floor(now() / 1000);
    const claims: Record<string, unknown> = {
      iss: issuer,
      aud: clientId,
      sub: 'user-1',
      iat: nowS,
      exp: nowS + TOKEN_LIFETIME_S,
      name: 'Test User',
      preferred_username: 'test',
      email: 'test@example.com',
      groups: ['staff'],
      ...code.claims,
    };
    const alg = provider.behaviour.idTokenAlg;
    switch (provider.behaviour.idToken) {
      case 'ok':
        break;
      case 'wrongIss':
        claims.iss = WRONG_ISSUER;
        break;
      case 'wrongAud':
        claims.aud = OTHER_CLIENT_ID;
        break;
      case 'multiAudNoAzp':
        claims.aud = [clientId, OTHER_CLIENT_ID];
        delete claims.azp;
        break;
      case 'multiAudWrongAzp':
        claims.aud = [clientId, OTHER_CLIENT_ID];
        claims.azp = OTHER_CLIENT_ID;
        break;
      case 'multiAudGoodAzp':
        claims.aud = [clientId, OTHER_CLIENT_ID];
        claims.azp = clientId;
        break;
      case 'audArrayOfOne':
        claims.aud = [clientId];
        break;
      case 'longSub':
        claims.sub = 's'.repeat(256);
        break;
      case 'controlInSub':
        claims.sub = 'user\n1';
        break;
      case 'expired':
        // Expired well beyond any clock tolerance, yet recently issued: only exp is wrong.
        claims.iat = nowS - 420;
        claims.exp = nowS - 120;
        break;
      case 'noExp':
        delete claims.exp;
        break;
      case 'noIat':
        delete claims.iat;
        break;
      case 'noSub':
        delete claims.sub;
        break;
      case 'nonce':
        claims.nonce = `nonce-${randomId(8)}`;
        break;
      case 'algNone':
        return sign(claims, { unsecured: true });
      case 'hs256':
        return sign(claims, { alg: 'HS256', hmacSecret: new TextEncoder().encode(clientSecret) });
      case 'unknownKid': {
        const stray = (strayKeys[alg] ??= await newKey(alg, 'unpublished'));
        return new CompactSign(new TextEncoder().encode(JSON.stringify(claims)))
          .setProtectedHeader({ alg, typ: 'JWT', kid: stray.kid })
          .sign(stray.privateKey);
      }
      case 'badSignature':
        return corruptSignature(await sign(claims, { alg }));
      case 'futureIat':
        claims.iat = nowS + 3600;
        claims.exp = nowS + 3600 + TOKEN_LIFETIME_S;
        break;
    }
    return sign(claims, { alg });
  }

  async function handleToken(req: IncomingMessage, res: ServerResponse, form: Record<string, string> | undefined) {
    const reject = (reason: string) => sendJson(res, 400, { error: 'invalid_grant' }, { 'x-fake-reason': reason });
    const type = String(req.headers['content-type'] ?? '')
      .split(';')[0]
      ?.trim()
      .toLowerCase();
    if (type !== FORM_TYPE) return reject(`content-type is not ${FORM_TYPE}`);
    if (!form) return reject('unreadable form (too large or a repeated parameter)');
    if (form.grant_type !== 'authorization_code') return reject('grant_type');
    const issued = form.code === undefined ? undefined : codes.get(form.code);
    if (!issued) return reject('unknown code');
    if (issued.used) return reject('code already used');
    // A code is consumed as soon as it is presented, even by a request that fails below.
    issued.used = true;
    if (form.client_id !== clientId) return reject('client_id');
    if ((form.client_secret ?? '') !== clientSecret) return reject('client_secret');
    if (issued.codeChallenge !== undefined) {
      if (form.code_verifier === undefined) return reject('code_verifier missing');
      const digest = createHash('sha256').update(form.code_verifier).digest('base64url');
      if (digest !== issued.codeChallenge) return reject('code_verifier does not match');
    }

    const behaviour = provider.behaviour.token;
    switch (behaviour) {
      case 'status400':
        return sendJson(res, 400, { error: 'invalid_request', error_description: 'forced' });
      case 'status500':
        return sendText(res, 500, 'internal server error');
      case 'badJson':
        return sendText(res, 200, '{"access_token": "at-', 'application/json');
      case 'badJsonToken':
        // Invalid JSON whose parser message would quote the token around the error.
        return sendText(res, 200, '{"id_token":eyJhbGciOiJSUzI1NiJ9.c2VjcmV0LXRva2Vu.sig}', 'application/json');
      case 'hang':
        return; // never answered; close() destroys the socket
      case 'destroy':
        req.socket.destroy();
        return;
      default:
        break;
    }
    const idToken = await idTokenFor(issued);
    const accessToken = `at-${randomId()}`;
    const ok = { access_token: accessToken, token_type: 'Bearer', id_token: idToken };
    switch (behaviour) {
      case 'ok':
        return sendJson(res, 200, ok);
      case 'notObject':
        return sendJson(res, 200, [ok]);
      case 'noIdToken':
        return sendJson(res, 200, { access_token: accessToken, token_type: 'Bearer' });
      case 'emptyIdToken':
        return sendJson(res, 200, { ...ok, id_token: '' });
      case 'huge':
        return sendHuge(res, accessToken, idToken);
    }
  }

  /** About 2 MiB of valid JSON, streamed with backpressure; the id_token is its last member. */
  async function sendHuge(res: ServerResponse, accessToken: string, idToken: string) {
    const head = `{"access_token":${JSON.stringify(accessToken)},"token_type":"Bearer","padding":"`;
    const tail = `","id_token":${JSON.stringify(idToken)}}`;
    const chunk = 'x'.repeat(64 * 1024);
    const chunks = Math.ceil((HUGE_BODY_BYTES - head.length - tail.length) / chunk.length);
    res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    function* body() {
      yield head;
      for (let i = 0; i < chunks; i++) yield chunk;
      yield tail;
    }
    // A client that stops reading at its cap aborts the stream; that is the expected outcome.
    await pipeline(Readable.from(body()), res).catch(() => undefined);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const method = req.method ?? 'GET';
    const path = new URL(req.url ?? '/', issuer).pathname;
    const record: FakeProvider['requests'][number] = { method, path, headers: { ...req.headers } };
    provider.requests.push(record);

    if (path === '/token') {
      if (method !== 'POST') return sendText(res, 405, 'method not allowed', undefined, { allow: 'POST' });
      const body = await readBody(req, MAX_FORM_BYTES);
      const form = body === undefined ? undefined : parseForm(body);
      if (form) record.form = form;
      return handleToken(req, res, form);
    }
    const known = ['/.well-known/openid-configuration', '/jwks', '/authorize'];
    if (!known.includes(path)) return sendText(res, 404, 'not found');
    if (method !== 'GET' && method !== 'HEAD') {
      return sendText(res, 405, 'method not allowed', undefined, { allow: 'GET, HEAD' });
    }
    switch (path) {
      case '/.well-known/openid-configuration':
        switch (provider.behaviour.discovery) {
          case 'ok':
            return sendJson(res, 200, discoveryDocument(issuer));
          case 'status500':
            return sendText(res, 500, 'internal server error');
          case 'badJson':
            return sendText(res, 200, '{"issuer": "http://', 'application/json');
          case 'wrongIssuer':
            return sendJson(res, 200, discoveryDocument(WRONG_ISSUER));
          case 'down':
            req.socket.destroy();
            return;
        }
        return;
      case '/jwks':
        return sendJson(res, 200, { keys: published });
      default:
        return sendText(res, 200, 'authorize');
    }
  }

  const provider: FakeProvider = {
    issuer,
    clientId,
    clientSecret,
    requests: [],
    behaviour: {
      discovery: 'ok',
      token: 'ok',
      idToken: 'ok',
      idTokenAlg: 'RS256',
      algsSupported: ['RS256', 'ES256'],
    },
    issueCode(codeOpts) {
      const code = `code-${randomId()}`;
      codes.set(code, {
        claims: { ...codeOpts?.claims },
        codeChallenge: codeOpts?.codeChallenge,
        used: false,
      });
      return code;
    },
    async rotateKey(rotateOpts) {
      generation += 1;
      const next = {
        RS256: await newKey('RS256', `k${generation}`),
        ES256: await newKey('ES256', `k${generation}`),
      };
      const fresh = [next.RS256.publicJwk, next.ES256.publicJwk];
      published = rotateOpts?.keepOld ? [...fresh, ...published] : fresh;
      current = next;
    },
    sign,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
  return provider;
}

/** The OIDC client configured for this provider, with key-set refetches allowed at once. */
export function clientFor(
  provider: FakeProvider,
  clock: Clock,
  opts: { tokenTimeoutMs?: number; fetch?: typeof globalThis.fetch } = {},
): OidcClient {
  return createOidcClient({
    issuer: provider.issuer,
    clientId: provider.clientId,
    clientSecret: provider.clientSecret,
    clock,
    tokenTimeoutMs: opts.tokenTimeoutMs ?? 2_000,
    jwksCooldownMs: 0,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}
