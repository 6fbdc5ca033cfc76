/**
 * The OpenID Connect relying party: provider discovery (cached), the authorization request, the
 * code exchange and identity token verification. `fetch` is injected so tests use a fake provider.
 */
import { createRemoteJWKSet, customFetch, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { Clock } from '../clock.ts';
import { discoverProvider, type ProviderMetadata } from './discovery.ts';
import { OidcError } from './errors.ts';
import { exchangeCode, TOKEN_TIMEOUT_MS } from './exchange.ts';
import { verifyIdToken } from './verify.ts';
import { type LogoutRequest, LogoutTokenRejected, verifyLogoutToken } from './logout_token.ts';

export interface OidcClient {
  /** Discovers the provider; throws OidcError('discovery_failed'). */
  discover(): Promise<ProviderMetadata>;
  /** Trades a code for the identity token; throws OidcError('exchange_failed'). */
  exchange(req: { code: string; redirectUri: string; codeVerifier: string }): Promise<string>;
  /** Verifies an identity token; throws OidcError('token_rejected'). */
  verify(idToken: string): Promise<JWTPayload & { sub: string }>;
  /**
   * Verifies a back-channel logout token (logout_token.ts) against the provider's metadata and
   * keys; throws LogoutTokenRejected, for a provider that cannot be reached too.
   */
  verifyLogoutToken(token: string): Promise<LogoutRequest>;
}

export interface OidcClientOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  clock: Clock;
  fetch?: typeof globalThis.fetch;
  /** Successful discovery is reused this long. */
  discoveryTtlMs?: number;
  /** A failed discovery is answered from memory this long. */
  discoveryFailureTtlMs?: number;
  tokenTimeoutMs?: number;
  /** Shortest time between two key-set fetches triggered by an unknown `kid`. */
  jwksCooldownMs?: number;
}

export function createOidcClient(opts: OidcClientOptions): OidcClient {
  const fetch = opts.fetch ?? globalThis.fetch;
  const ttl = opts.discoveryTtlMs ?? 3_600_000;
  let cached: { metadata: ProviderMetadata; until: number; keys: JWTVerifyGetKey } | undefined;
  let failed: { error: OidcError; until: number } | undefined;
  let inFlight: Promise<NonNullable<typeof cached>> | undefined;

  /**
   * The provider's metadata and keys. Requests that need them at once share one discovery, and a
   * failure is remembered for a few seconds: while the provider is down, sign-in pages cannot
   * make Paddock send it a request each.
   */
  function provider(): Promise<NonNullable<typeof cached>> {
    const now = opts.clock.now();
    if (cached && cached.until > now) return Promise.resolve(cached);
    if (failed && failed.until > now) return Promise.reject(failed.error);
    inFlight ??= discover().finally(() => (inFlight = undefined));
    return inFlight;
  }

  async function discover(): Promise<NonNullable<typeof cached>> {
    let metadata: ProviderMetadata;
    try {
      metadata = await discoverProvider(opts.issuer, fetch, 10_000);
    } catch (err) {
      const error = new OidcError('discovery_failed', `provider discovery failed: ${describe(err)}`, err);
      failed = { error, until: opts.clock.now() + (opts.discoveryFailureTtlMs ?? 5_000) };
      throw error;
    }
    failed = undefined;
    // jose refetches the key set when a token names an unknown kid: key rotation needs no restart.
    const keys =
      cached && cached.metadata.jwksUri.href === metadata.jwksUri.href
        ? cached.keys
        : createRemoteJWKSet(metadata.jwksUri, {
            [customFetch]: fetch,
            cooldownDuration: opts.jwksCooldownMs ?? 30_000,
            timeoutDuration: 10_000,
          });
    cached = { metadata, until: opts.clock.now() + ttl, keys };
    return cached;
  }

  return {
    async discover() {
      return (await provider()).metadata;
    },

    async exchange(req) {
      const { metadata } = await provider().catch((err: unknown) => {
        throw new OidcError('exchange_failed', describe(err), err);
      });
      try {
        return await exchangeCode(
          { ...req, tokenEndpoint: metadata.tokenEndpoint, clientId: opts.clientId, clientSecret: opts.clientSecret },
          fetch,
          opts.tokenTimeoutMs ?? TOKEN_TIMEOUT_MS,
        );
      } catch (err) {
        throw new OidcError('exchange_failed', `token exchange failed: ${describe(err)}`, err);
      }
    },

    async verify(idToken) {
      try {
        const { metadata, keys } = await provider();
        return await verifyIdToken(idToken, {
          issuer: metadata.issuer,
          clientId: opts.clientId,
          algorithms: metadata.idTokenAlgorithms,
          keys,
          now: opts.clock.now(),
        });
      } catch (err) {
        throw new OidcError('token_rejected', `identity token rejected: ${describe(err)}`, err);
      }
    },

    async verifyLogoutToken(token) {
      const { metadata, keys } = await provider().catch((err: unknown) => {
        throw new LogoutTokenRejected(`cannot verify: ${describe(err)}`, { cause: err });
      });
      return verifyLogoutToken(token, {
        issuer: metadata.issuer,
        clientId: opts.clientId,
        algorithms: metadata.idTokenAlgorithms,
        keys,
        now: opts.clock.now(),
      });
    },
  };
}

/** The error text with its cause (fetch hides the network error there). */
function describe(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
