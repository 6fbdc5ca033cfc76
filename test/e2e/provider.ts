/**
 * A real OpenID provider for the browser suite: `oidc-provider` on loopback with its own login
 * and consent pages, one confidential client with PKCE required, and two accounts: `alice` in the
 * admin group and `bob` outside it.
 */
import { createServer, type Server } from 'node:http';
import { exportJWK, generateKeyPair } from 'jose';
import Provider from 'oidc-provider';

export const ADMIN_GROUP = 'paddock-admins';
export const CLIENT = { id: 'paddock-e2e', secret: 'e2e-client-secret-0123456789' };

const accounts: Record<string, { name: string; email: string; groups: string[] }> = {
  alice: { name: 'Alice Admin', email: 'alice@example.com', groups: ['staff', ADMIN_GROUP] },
  bob: { name: 'Bob Builder', email: 'bob@example.com', groups: ['staff'] },
};

export async function startProvider(port: number, redirectUri: string): Promise<{ issuer: string; server: Server }> {
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        redirect_uris: [redirectUri],
        token_endpoint_auth_method: 'client_secret_post',
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
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
    features: { devInteractions: { enabled: true } },
  });
  const server = createServer(provider.callback());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { issuer, server };
}
