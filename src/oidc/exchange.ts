/** The token exchange exactly as the specification fixes it ("Token exchange made by the callback"). */
import { readCapped } from './http.ts';

export const TOKEN_TIMEOUT_MS = 15_000;
export const TOKEN_READ_CAP = 1_048_576;

export interface ExchangeRequest {
  tokenEndpoint: URL;
  code: string;
  redirectUri: string;
  clientId: string;
  clientSecret: string;
  codeVerifier: string;
}

/** Returns the identity token; throws (with a message fit for the log) on every failure. */
export async function exchangeCode(
  req: ExchangeRequest,
  fetch: typeof globalThis.fetch,
  timeoutMs = TOKEN_TIMEOUT_MS,
): Promise<string> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code: req.code,
    redirect_uri: req.redirectUri,
    client_id: req.clientId,
    code_verifier: req.codeVerifier,
  });
  if (req.clientSecret !== '') form.set('client_secret', req.clientSecret);
  const response = await fetch(req.tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body: form.toString(),
    redirect: 'error',
    // The one signal bounds the whole exchange: connection, headers and the body read below.
    signal: AbortSignal.timeout(timeoutMs),
  });
  if (response.status !== 200) {
    await response.body?.cancel();
    throw new Error(`token endpoint answered ${response.status}`);
  }
  const text = await readCapped(response, TOKEN_READ_CAP);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    // A fixed message: the parser's own quotes the text around the error, which may be a token,
    // and this message is logged (login.oidc.exchange_failed).
    throw new Error('token response is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new Error('token response is not a JSON object');
  const idToken = (body as Record<string, unknown>).id_token;
  if (typeof idToken !== 'string' || idToken === '') throw new Error('token response has no id_token');
  return idToken;
}
