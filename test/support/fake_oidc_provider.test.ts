import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import {
  HUGE_BODY_BYTES,
  OTHER_CLIENT_ID,
  TOKEN_LIFETIME_S,
  WRONG_ISSUER,
  startFakeProvider,
  type Behaviour,
  type FakeProvider,
} from './fake_oidc_provider.ts';

const NOW_MS = Date.now();
const NOW_S = Math.floor(NOW_MS / 1000);

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

interface TokenRequest {
  code: string;
  verifier?: string;
  clientId?: string;
  clientSecret?: string;
  grantType?: string;
}

function tokenRequest(fake: FakeProvider, req: TokenRequest, signal?: AbortSignal) {
  const form = new URLSearchParams({
    grant_type: req.grantType ?? 'authorization_code',
    code: req.code,
    redirect_uri: 'http://127.0.0.1/callback',
    client_id: req.clientId ?? fake.clientId,
    client_secret: req.clientSecret ?? fake.clientSecret,
  });
  if (req.verifier !== undefined) form.set('code_verifier', req.verifier);
  return fetch(`${fake.issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form.toString(),
    ...(signal ? { signal } : {}),
  });
}

/** Runs a successful exchange and returns the id_token. */
async function idToken(fake: FakeProvider, claims?: Record<string, unknown>): Promise<string> {
  const { verifier, challenge } = pkce();
  const code = fake.issueCode({ codeChallenge: challenge, ...(claims ? { claims } : {}) });
  const res = await tokenRequest(fake, { code, verifier });
  assert.equal(res.status, 200);
  const body = (await res.json()) as Record<string, unknown>;
  assert.equal(typeof body.id_token, 'string');
  return body.id_token as string;
}

function signaturePart(jwt: string): Buffer {
  return Buffer.from(jwt.split('.')[2] ?? '', 'base64url');
}

describe('fake OIDC provider', () => {
  let fake: FakeProvider;
  const defaults: Behaviour = {
    discovery: 'ok',
    token: 'ok',
    idToken: 'ok',
    idTokenAlg: 'RS256',
    algsSupported: ['RS256', 'ES256'],
  };

  before(async () => {
    fake = await startFakeProvider({ now: () => NOW_MS });
  });
  after(async () => {
    await fake.close();
  });
  afterEach(() => {
    Object.assign(fake.behaviour, defaults, { algsSupported: [...defaults.algsSupported] });
  });

  test('starts with the documented defaults', () => {
    assert.match(fake.issuer, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(fake.clientId, 'paddock-test');
    assert.equal(fake.clientSecret, 'test-secret');
    assert.deepEqual(fake.behaviour, defaults);
  });

  test('publishes the discovery document', async () => {
    const res = await fetch(`${fake.issuer}/.well-known/openid-configuration`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
    assert.deepEqual(await res.json(), {
      issuer: fake.issuer,
      authorization_endpoint: `${fake.issuer}/authorize`,
      token_endpoint: `${fake.issuer}/token`,
      jwks_uri: `${fake.issuer}/jwks`,
      response_types_supported: ['code'],
      subject_types_supported: ['public'],
      id_token_signing_alg_values_supported: ['RS256', 'ES256'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_post'],
    });
    fake.behaviour.algsSupported = ['ES256'];
    const doc = (await (await fetch(`${fake.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    assert.deepEqual(doc.id_token_signing_alg_values_supported, ['ES256']);
  });

  test('publishes an RSA 2048 and an EC P-256 public key', async () => {
    const { keys } = (await (await fetch(`${fake.issuer}/jwks`)).json()) as {
      keys: Array<Record<string, unknown>>;
    };
    assert.equal(keys.length, 2);
    const rsa = keys.find((k) => k.kty === 'RSA');
    const ec = keys.find((k) => k.kty === 'EC');
    assert.ok(rsa && ec);
    assert.equal(rsa.alg, 'RS256');
    assert.equal(rsa.use, 'sig');
    assert.equal(typeof rsa.kid, 'string');
    assert.equal(Buffer.from(String(rsa.n), 'base64url').length, 256);
    assert.equal(rsa.d, undefined);
    assert.equal(ec.alg, 'ES256');
    assert.equal(ec.crv, 'P-256');
    assert.equal(ec.use, 'sig');
    assert.equal(ec.d, undefined);
    assert.notEqual(ec.kid, rsa.kid);
  });

  test('misbehaves on discovery as told', async () => {
    const url = `${fake.issuer}/.well-known/openid-configuration`;
    fake.behaviour.discovery = 'status500';
    assert.equal((await fetch(url)).status, 500);
    fake.behaviour.discovery = 'badJson';
    const bad = await fetch(url);
    assert.equal(bad.status, 200);
    await assert.rejects(bad.json(), SyntaxError);
    fake.behaviour.discovery = 'wrongIssuer';
    const wrong = (await (await fetch(url)).json()) as Record<string, unknown>;
    assert.equal(wrong.issuer, WRONG_ISSUER);
    assert.equal(wrong.token_endpoint, `${fake.issuer}/token`);
    fake.behaviour.discovery = 'down';
    await assert.rejects(fetch(url), TypeError);
  });

  test('answers /authorize and 404s unknown paths', async () => {
    const authorize = await fetch(`${fake.issuer}/authorize?client_id=x&state=y`);
    assert.equal(authorize.status, 200);
    assert.equal(await authorize.text(), 'authorize');
    assert.equal((await fetch(`${fake.issuer}/nope`)).status, 404);
    assert.equal((await fetch(`${fake.issuer}/token`)).status, 405);
  });

  test('exchanges a code with its PKCE verifier for a verifiable id_token', async () => {
    const { verifier, challenge } = pkce();
    const code = fake.issueCode({ codeChallenge: challenge });
    const before = fake.requests.length;
    const res = await tokenRequest(fake, { code, verifier });
    assert.equal(res.status, 200);
    const body = (await res.json()) as Record<string, unknown>;
    assert.equal(body.token_type, 'Bearer');
    assert.equal(typeof body.access_token, 'string');
    const { payload, protectedHeader } = await jwtVerify(
      String(body.id_token),
      createRemoteJWKSet(new URL(`${fake.issuer}/jwks`)),
      { issuer: fake.issuer, audience: fake.clientId, currentDate: new Date(NOW_MS) },
    );
    assert.equal(protectedHeader.alg, 'RS256');
    assert.deepEqual(payload, {
      iss: fake.issuer,
      aud: fake.clientId,
      sub: 'user-1',
      iat: NOW_S,
      exp: NOW_S + TOKEN_LIFETIME_S,
      name: 'Test User',
      preferred_username: 'test',
      email: 'test@example.com',
      groups: ['staff'],
    });

    const recorded = fake.requests.slice(before).find((r) => r.path === '/token');
    assert.ok(recorded);
    assert.equal(recorded.method, 'POST');
    assert.equal(recorded.headers['content-type'], 'application/x-www-form-urlencoded');
    assert.equal(recorded.form?.code, code);
    assert.equal(recorded.form?.code_verifier, verifier);
    assert.equal(recorded.form?.client_secret, fake.clientSecret);
  });

  test('signs with ES256 when told, verifiable against the JWKS', async () => {
    fake.behaviour.idTokenAlg = 'ES256';
    const token = await idToken(fake);
    const { protectedHeader } = await jwtVerify(token, createRemoteJWKSet(new URL(`${fake.issuer}/jwks`)), {
      issuer: fake.issuer,
      audience: fake.clientId,
      currentDate: new Date(NOW_MS),
    });
    assert.equal(protectedHeader.alg, 'ES256');
  });

  test("a code's claims override and extend the defaults", async () => {
    const claims = decodeJwt(await idToken(fake, { sub: 'alice', groups: [], extra: 1 }));
    assert.equal(claims.sub, 'alice');
    assert.deepEqual(claims.groups, []);
    assert.equal(claims.extra, 1);
    assert.equal(claims.email, 'test@example.com');
  });

  test('a code issued without a challenge needs no verifier', async () => {
    const code = fake.issueCode();
    assert.equal((await tokenRequest(fake, { code })).status, 200);
  });

  describe('rejects a bad exchange with 400 invalid_grant', () => {
    async function assertInvalidGrant(res: Response) {
      assert.equal(res.status, 400);
      assert.deepEqual(await res.json(), { error: 'invalid_grant' });
    }

    test('a reused code', async () => {
      const { verifier, challenge } = pkce();
      const code = fake.issueCode({ codeChallenge: challenge });
      assert.equal((await tokenRequest(fake, { code, verifier })).status, 200);
      await assertInvalidGrant(await tokenRequest(fake, { code, verifier }));
    });

    test('an unknown code', async () => {
      await assertInvalidGrant(await tokenRequest(fake, { code: 'made-up' }));
    });

    test('a wrong client secret', async () => {
      const { verifier, challenge } = pkce();
      const code = fake.issueCode({ codeChallenge: challenge });
      await assertInvalidGrant(await tokenRequest(fake, { code, verifier, clientSecret: 'nope' }));
    });

    test('a wrong client id', async () => {
      const code = fake.issueCode();
      await assertInvalidGrant(await tokenRequest(fake, { code, clientId: 'someone-else' }));
    });

    test('a wrong grant type', async () => {
      const code = fake.issueCode();
      await assertInvalidGrant(await tokenRequest(fake, { code, grantType: 'password' }));
    });

    test('a wrong or missing PKCE verifier', async () => {
      const { challenge } = pkce();
      const code = fake.issueCode({ codeChallenge: challenge });
      await assertInvalidGrant(await tokenRequest(fake, { code, verifier: pkce().verifier }));
      const code2 = fake.issueCode({ codeChallenge: challenge });
      await assertInvalidGrant(await tokenRequest(fake, { code: code2 }));
    });

    test('a body that is not a form', async () => {
      const code = fake.issueCode();
      const res = await fetch(`${fake.issuer}/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'authorization_code', code }),
      });
      await assertInvalidGrant(res);
    });
  });

  test('rotateKey signs with a new kid and republishes the JWKS', async () => {
    const jwksKids = async () => {
      const { keys } = (await (await fetch(`${fake.issuer}/jwks`)).json()) as {
        keys: Array<{ kid: string }>;
      };
      return keys.map((k) => k.kid);
    };
    const oldKid = decodeProtectedHeader(await idToken(fake)).kid;
    assert.ok(oldKid);
    const oldKids = await jwksKids();
    assert.ok(oldKids.includes(oldKid));

    await fake.rotateKey();
    const newKid = decodeProtectedHeader(await idToken(fake)).kid;
    assert.ok(newKid);
    assert.notEqual(newKid, oldKid);
    const newKids = await jwksKids();
    assert.ok(newKids.includes(newKid));
    assert.ok(!newKids.includes(oldKid));
    assert.equal(newKids.length, 2);

    await fake.rotateKey({ keepOld: true });
    const newestKid = decodeProtectedHeader(await idToken(fake)).kid;
    assert.ok(newestKid && newestKid !== newKid);
    const keptKids = await jwksKids();
    assert.ok(keptKids.includes(newestKid));
    assert.ok(keptKids.includes(newKid));
    assert.equal(keptKids.length, 4);
  });

  describe('token endpoint behaviours', () => {
    async function exchange(signal?: AbortSignal): Promise<Response> {
      const { verifier, challenge } = pkce();
      const code = fake.issueCode({ codeChallenge: challenge });
      return tokenRequest(fake, { code, verifier }, signal);
    }

    test('status400 and status500', async () => {
      fake.behaviour.token = 'status400';
      const r400 = await exchange();
      assert.equal(r400.status, 400);
      await r400.body?.cancel();
      fake.behaviour.token = 'status500';
      const r500 = await exchange();
      assert.equal(r500.status, 500);
      await r500.body?.cancel();
    });

    test('badJson', async () => {
      fake.behaviour.token = 'badJson';
      const res = await exchange();
      assert.equal(res.status, 200);
      await assert.rejects(res.json(), SyntaxError);
    });

    test('notObject, noIdToken, emptyIdToken', async () => {
      fake.behaviour.token = 'notObject';
      const notObject: unknown = await (await exchange()).json();
      assert.ok(typeof notObject !== 'object' || notObject === null || Array.isArray(notObject));

      fake.behaviour.token = 'noIdToken';
      const noId = (await (await exchange()).json()) as Record<string, unknown>;
      assert.equal(typeof noId.access_token, 'string');
      assert.equal('id_token' in noId, false);

      fake.behaviour.token = 'emptyIdToken';
      const empty = (await (await exchange()).json()) as Record<string, unknown>;
      assert.equal(empty.id_token, '');
    });

    test('hang never answers', async () => {
      fake.behaviour.token = 'hang';
      await assert.rejects(exchange(AbortSignal.timeout(300)), { name: 'TimeoutError' });
    });

    test('destroy drops the connection', async () => {
      fake.behaviour.token = 'destroy';
      await assert.rejects(exchange(), TypeError);
    });

    test('huge streams more than 1 MiB of valid JSON ending with a valid id_token', async () => {
      fake.behaviour.token = 'huge';
      const res = await exchange();
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-length'), null);
      const text = await res.text();
      assert.ok(Buffer.byteLength(text) > 1024 * 1024);
      assert.ok(Buffer.byteLength(text) >= HUGE_BODY_BYTES);
      const body = JSON.parse(text) as Record<string, unknown>;
      assert.equal(Object.keys(body).at(-1), 'id_token');
      await jwtVerify(String(body.id_token), createRemoteJWKSet(new URL(`${fake.issuer}/jwks`)), {
        issuer: fake.issuer,
        audience: fake.clientId,
        currentDate: new Date(NOW_MS),
      });
    });

    test('huge survives a client that gives up early', async () => {
      fake.behaviour.token = 'huge';
      const res = await exchange();
      const reader = res.body?.getReader();
      assert.ok(reader);
      await reader.read();
      await reader.cancel();
      fake.behaviour.token = 'ok';
      assert.equal((await exchange()).status, 200);
    });
  });

  describe('id_token mutations', () => {
    async function mutated(kind: Behaviour['idToken']) {
      fake.behaviour.idToken = kind;
      const token = await idToken(fake);
      return { token, header: decodeProtectedHeader(token), claims: decodeJwt(token) };
    }
    const jwks = () => createRemoteJWKSet(new URL(`${fake.issuer}/jwks`));

    test('wrongIss', async () => {
      const { claims } = await mutated('wrongIss');
      assert.equal(claims.iss, WRONG_ISSUER);
      assert.notEqual(claims.iss, fake.issuer);
    });

    test('wrongAud', async () => {
      const { claims } = await mutated('wrongAud');
      assert.equal(claims.aud, OTHER_CLIENT_ID);
    });

    test('multiAudNoAzp, multiAudWrongAzp, multiAudGoodAzp', async () => {
      const none = (await mutated('multiAudNoAzp')).claims;
      assert.deepEqual(none.aud, [fake.clientId, OTHER_CLIENT_ID]);
      assert.equal('azp' in none, false);
      const wrong = (await mutated('multiAudWrongAzp')).claims;
      assert.deepEqual(wrong.aud, [fake.clientId, OTHER_CLIENT_ID]);
      assert.equal(wrong.azp, OTHER_CLIENT_ID);
      const good = (await mutated('multiAudGoodAzp')).claims;
      assert.deepEqual(good.aud, [fake.clientId, OTHER_CLIENT_ID]);
      assert.equal(good.azp, fake.clientId);
    });

    test('expired', async () => {
      const { claims } = await mutated('expired');
      assert.ok(typeof claims.exp === 'number' && claims.exp < NOW_S - 60);
      assert.ok(typeof claims.iat === 'number' && claims.iat < claims.exp);
      assert.ok(claims.iat > NOW_S - 600, 'recent enough that only exp is wrong');
    });

    test('noExp, noIat, noSub', async () => {
      const noExp = (await mutated('noExp')).claims;
      assert.equal('exp' in noExp, false);
      assert.equal(noExp.iat, NOW_S);
      const noIat = (await mutated('noIat')).claims;
      assert.equal('iat' in noIat, false);
      assert.equal(noIat.exp, NOW_S + TOKEN_LIFETIME_S);
      const noSub = (await mutated('noSub')).claims;
      assert.equal('sub' in noSub, false);
    });

    test('nonce', async () => {
      const { claims } = await mutated('nonce');
      assert.equal(typeof claims.nonce, 'string');
    });

    test('futureIat', async () => {
      const { claims } = await mutated('futureIat');
      assert.equal(claims.iat, NOW_S + 3600);
      assert.ok(typeof claims.exp === 'number' && claims.exp > NOW_S + 3600);
    });

    test('algNone is an unsecured JWT', async () => {
      const { token, header, claims } = await mutated('algNone');
      assert.deepEqual(header, { alg: 'none' });
      assert.ok(token.endsWith('.'));
      assert.equal(token.split('.').length, 3);
      assert.equal(claims.iss, fake.issuer);
    });

    test('hs256 is signed with the client secret', async () => {
      const { token, header } = await mutated('hs256');
      assert.equal(header.alg, 'HS256');
      const { payload } = await jwtVerify(token, new TextEncoder().encode(fake.clientSecret), {
        currentDate: new Date(NOW_MS),
      });
      assert.equal(payload.iss, fake.issuer);
    });

    test('unknownKid names a key the JWKS does not hold', async () => {
      for (const alg of ['RS256', 'ES256'] as const) {
        fake.behaviour.idTokenAlg = alg;
        const { token, header } = await mutated('unknownKid');
        assert.equal(header.alg, alg);
        assert.equal(typeof header.kid, 'string');
        const { keys } = (await (await fetch(`${fake.issuer}/jwks`)).json()) as {
          keys: Array<{ kid: string }>;
        };
        assert.ok(!keys.some((k) => k.kid === header.kid));
        await assert.rejects(
          jwtVerify(token, jwks(), { currentDate: new Date(NOW_MS) }),
          (err: Error) => (err as { code?: string }).code === 'ERR_JWKS_NO_MATCHING_KEY',
        );
      }
    });

    test('badSignature fails verification with a published kid', async () => {
      for (const alg of ['RS256', 'ES256'] as const) {
        fake.behaviour.idTokenAlg = alg;
        const { token, header, claims } = await mutated('badSignature');
        assert.equal(header.alg, alg);
        assert.equal(claims.iss, fake.issuer);
        await assert.rejects(
          jwtVerify(token, jwks(), { currentDate: new Date(NOW_MS) }),
          (err: Error) => (err as { code?: string }).code === 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED',
        );
      }
    });

    test('ok verifies', async () => {
      const { token } = await mutated('ok');
      await jwtVerify(token, jwks(), {
        issuer: fake.issuer,
        audience: fake.clientId,
        currentDate: new Date(NOW_MS),
      });
    });
  });

  describe('sign()', () => {
    test('signs arbitrary claims with the current key, a chosen kid, HMAC or none', async () => {
      const jwks = createRemoteJWKSet(new URL(`${fake.issuer}/jwks`));
      const rs = await fake.sign({ sub: 'x' });
      assert.equal(decodeProtectedHeader(rs).alg, 'RS256');
      assert.equal((await jwtVerify(rs, jwks)).payload.sub, 'x');

      const es = await fake.sign({ sub: 'y' }, { alg: 'ES256' });
      assert.equal(decodeProtectedHeader(es).alg, 'ES256');
      await jwtVerify(es, jwks);

      const kid = await fake.sign({ sub: 'z' }, { kid: 'chosen' });
      assert.equal(decodeProtectedHeader(kid).kid, 'chosen');

      const secret = randomBytes(32);
      const hs = await fake.sign({ sub: 'h' }, { hmacSecret: secret });
      assert.equal(decodeProtectedHeader(hs).alg, 'HS256');
      await jwtVerify(hs, secret);

      const none = await fake.sign({ sub: 'n' }, { unsecured: true });
      assert.deepEqual(decodeProtectedHeader(none), { alg: 'none' });
      assert.equal(decodeJwt(none).sub, 'n');
      assert.ok(none.endsWith('.'));

      await assert.rejects(fake.sign({}, { alg: 'ES512' }));
    });

    test('badSignature differs from the genuine RS256 token in exactly one bit', async () => {
      // RS256 (PKCS#1 v1.5) is deterministic and the clock is fixed: same claims, same signature.
      const genuine = await idToken(fake);
      fake.behaviour.idToken = 'badSignature';
      const broken = await idToken(fake);
      assert.equal(broken.split('.').slice(0, 2).join('.'), genuine.split('.').slice(0, 2).join('.'));
      const a = signaturePart(genuine);
      const b = signaturePart(broken);
      assert.equal(a.length, b.length);
      let bits = 0;
      for (let i = 0; i < a.length; i++) {
        for (let x = (a[i] ?? 0) ^ (b[i] ?? 0); x; x >>= 1) bits += x & 1;
      }
      assert.equal(bits, 1);
    });
  });
});

describe('fake OIDC provider options', () => {
  let fake: FakeProvider;
  before(async () => {
    fake = await startFakeProvider({
      now: () => 1_700_000_000_000,
      clientId: 'custom',
      clientSecret: 'custom-secret',
    });
  });
  after(async () => {
    await fake.close();
  });

  test('uses the given clock and client credentials', async () => {
    assert.equal(fake.clientId, 'custom');
    const code = fake.issueCode();
    assert.equal((await tokenRequest(fake, { code, clientSecret: 'test-secret' })).status, 400);
    const claims = decodeJwt(await idToken(fake));
    assert.equal(claims.aud, 'custom');
    assert.equal(claims.iat, 1_700_000_000);
    assert.equal(claims.exp, 1_700_000_000 + TOKEN_LIFETIME_S);
  });

  test('close() ends even with a hanging request', async () => {
    const other = await startFakeProvider();
    other.behaviour.token = 'hang';
    const pending = tokenRequest(other, { code: other.issueCode() });
    // Let the request reach the server before closing.
    while (!other.requests.some((r) => r.form)) await new Promise((r) => setTimeout(r, 5));
    await other.close();
    await assert.rejects(pending, TypeError);
  });
});
