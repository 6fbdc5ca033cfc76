/**
 * Provider discovery (OpenID Connect Discovery 1.0 section 4): the issuer in the document must
 * equal the configured issuer exactly (section 4.3), or a provider could impersonate another.
 */
import { endpointUrl, readCapped } from './http.ts';

export interface ProviderMetadata {
  issuer: string;
  authorizationEndpoint: URL;
  tokenEndpoint: URL;
  jwksUri: URL;
  /** Asymmetric id_token signing algorithms the provider supports: our allow-list. */
  idTokenAlgorithms: string[];
}

/** HMAC algorithms would use the client secret as the key, and `none` is no signature at all. */
const ASYMMETRIC = new Set([
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
]);

export async function discoverProvider(
  issuer: string,
  fetch: typeof globalThis.fetch,
  timeoutMs: number,
): Promise<ProviderMetadata> {
  const url = `${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, {
    headers: { accept: 'application/json' },
    redirect: 'error',
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`discovery answered ${response.status}`);
  }
  const doc: unknown = JSON.parse(await readCapped(response, 1_048_576));
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
    throw new Error('discovery document is not a JSON object');
  const d = doc as Record<string, unknown>;
  if (d.issuer !== issuer)
    throw new Error(`discovery issuer ${JSON.stringify(d.issuer)} does not equal the configured issuer`);
  const supported = d.id_token_signing_alg_values_supported;
  // Core section 15.1: RS256 is the default every provider supports when it lists none.
  const algs = (Array.isArray(supported) ? supported : ['RS256']).filter(
    (a): a is string => typeof a === 'string' && ASYMMETRIC.has(a),
  );
  if (algs.length === 0) throw new Error('the provider offers no acceptable id_token signing algorithm');
  return {
    issuer,
    authorizationEndpoint: endpointUrl(d.authorization_endpoint, 'authorization_endpoint'),
    tokenEndpoint: endpointUrl(d.token_endpoint, 'token_endpoint'),
    jwksUri: endpointUrl(d.jwks_uri, 'jwks_uri'),
    idTokenAlgorithms: algs,
  };
}
