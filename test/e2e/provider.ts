/**
 * A real OpenID provider for the browser suite and the back-channel logout tests: `oidc-provider`
 * on loopback with its own login, consent and sign-out pages, confidential clients with PKCE
 * required, and four accounts: `alice` in the admin group, `bob` outside it, `olga` in the group
 * `ops` (a group that owns devices, docs/contract.md section 19) and `sam`, whom the identity
 * provider also provisions over SCIM (section 20). Each identity token carries the `groups` claim.
 * Each client is registered as the README says a deployment registers Paddock: its callback as
 * redirect URI, and `<BaseURL>/oidc/backchannel-logout` with `backchannel_logout_session_required`
 * (docs/contract.md section 17), so signing out at the provider posts a logout token to Paddock.
 */
import { createServer, type Server } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, type JWTPayload } from 'jose';
import Provider, { type ClientMetadata } from 'oidc-provider';

export const ADMIN_GROUP = 'paddock-admins';
export const CLIENT = { id: 'paddock-e2e', secret: 'e2e-client-secret-0123456789' };
export const CALLBACK_PATH = '/admin/callback';
export const BACKCHANNEL_LOGOUT_PATH = '/oidc/backchannel-logout';

const accounts: Record<string, { name: string; email: string; groups: string[] }> = {
  alice: { name: 'Alice Admin', email: 'alice@example.com', groups: ['staff', ADMIN_GROUP] },
  bob: { name: 'Bob Builder', email: 'bob@example.com', groups: ['staff'] },
  olga: { name: 'Olga Operator', email: 'olga@example.com', groups: ['staff', 'ops'] },
  sam: { name: 'Sam Seasonal', email: 'sam@example.com', groups: ['staff'] },
};

/** One client at the provider: a Paddock deployment (one or several instances behind it). */
export interface RegisteredClient {
  id: string;
  redirectUris: string[];
  /** Where the provider posts logout tokens (OpenID Connect Back-Channel Logout 1.0 section 2.2). */
  backchannelLogoutUri: string;
  /**
   * `backchannel_logout_session_required` (true unless false): the identity tokens and the logout
   * tokens name the sign-in (`sid`). Without it a logout token names only the account (`sub`).
   */
  sessionRequired?: boolean;
}

/** What the provider posted to a back-channel logout URI, and how it was answered. */
export interface LogoutPost {
  url: string;
  /** The logout token as posted, and its claims. */
  token: string;
  claims: JWTPayload;
  /** The answer's status, or 0 when none came. */
  status: number;
  cacheControl: string | null;
  error?: string;
}

export interface StartedProvider {
  issuer: string;
  server: Server;
  /** The claims of every identity token the token endpoint issued, in order. */
  idTokens: JWTPayload[];
  /** Every logout token the provider posted, in order. */
  logoutPosts: LogoutPost[];
  /** Requests its token endpoint received, whatever their outcome (docs/contract.md section 23). */
  tokenRequests(): number;
  close(): void;
}

/**
 * The client of Paddock at `base` (a deployment's BaseURL, or several instances' BaseURLs), with
 * the back-channel logout URI at the first one unless `overrides` names another.
 */
export function paddockClient(base: string | string[], overrides: Partial<RegisteredClient> = {}): RegisteredClient {
  const bases = typeof base === 'string' ? [base] : base;
  return {
    id: CLIENT.id,
    redirectUris: bases.map((b) => new URL(CALLBACK_PATH, b).href),
    backchannelLogoutUri: new URL(BACKCHANNEL_LOGOUT_PATH, bases[0]).href,
    ...overrides,
  };
}

/** Starts the provider on loopback `port` with `clients`, or with the one client of the Paddock whose redirect URI is given. */
export async function startProvider(port: number, clients: string | RegisteredClient[]): Promise<StartedProvider> {
  const registered =
    typeof clients === 'string' ? [paddockClient(new URL(clients).origin, { redirectUris: [clients] })] : clients;
  const issuer = `http://127.0.0.1:${port}`;
  const idTokens: JWTPayload[] = [];
  const logoutPosts: LogoutPost[] = [];
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: registered.map((c): ClientMetadata => ({
      client_id: c.id,
      client_secret: CLIENT.secret,
      redirect_uris: c.redirectUris,
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      backchannel_logout_uri: c.backchannelLogoutUri,
      // True: every identity token and logout token names the sign-in (`sid`).
      backchannel_logout_session_required: c.sessionRequired ?? true,
    })),
    pkce: { required: () => true },
    findAccount: async (_ctx, id) => {
      const account = accounts[id];
      if (!account) return undefined;
      return { accountId: id, claims: async () => ({ sub: id, preferred_username: id, ...account }) };
    },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username', 'groups'], email: ['email'] },
    // Put the claims the scopes ask for into the identity token, which is all Paddock reads.
    conformIdTokenClaims: false,
    jwks: { keys: [{ ...(await exportJWK(privateKey)), alg: 'RS256', use: 'sig', kid: 'e2e' }] },
    cookies: { keys: ['e2e cookie key'] },
    features: {
      devInteractions: { enabled: true },
      // The end-session page a user signs out on; confirming it posts the logout tokens.
      rpInitiatedLogout: { enabled: true },
      backchannelLogout: { enabled: true },
    },
    fetch: recordingFetch(new Set(registered.map((c) => new URL(c.backchannelLogoutUri).origin)), logoutPosts),
  });
  provider.on('grant.success', (ctx) => {
    const idToken = (ctx.body as { id_token?: unknown } | undefined)?.id_token;
    if (typeof idToken === 'string') idTokens.push(decodeJwt(idToken));
  });
  let tokenRequests = 0;
  const handle = provider.callback();
  const server = createServer((req, res) => {
    if (new URL(req.url ?? '/', issuer).pathname === '/token') tokenRequests += 1;
    return handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    issuer,
    server,
    idTokens,
    logoutPosts,
    tokenRequests: () => tokenRequests,
    close() {
      server.close();
      server.closeAllConnections();
    },
  };
}

/**
 * The provider's own `fetch` setting, which every request it makes goes through. oidc-provider
 * hands each one a dispatcher that drops connections to loopback and other special-use addresses
 * (its SSRF guard, lib/helpers/fetch_request.js); Paddock listens on loopback here, so requests to
 * the registered back-channel logout origins go without it, and every other keeps it. What the
 * provider posts there is recorded.
 */
function recordingFetch(paddocks: Set<string>, posts: LogoutPost[]): typeof fetch {
  return async function providerFetch(input, init) {
    const url = new URL(input instanceof Request ? input.url : input);
    if (!paddocks.has(url.origin) || init === undefined) return fetch(input, init);
    const unguarded: RequestInit = { ...init };
    delete unguarded.dispatcher;
    const token = (init.body instanceof URLSearchParams ? init.body.get('logout_token') : null) ?? '';
    const post: LogoutPost = {
      url: url.href,
      token,
      claims: token ? decodeJwt(token) : {},
      status: 0,
      cacheControl: null,
    };
    posts.push(post);
    try {
      const res = await fetch(input, unguarded);
      post.status = res.status;
      post.cacheControl = res.headers.get('cache-control');
      return res;
    } catch (err) {
      post.error = (err as Error).message;
      throw err;
    }
  };
}
