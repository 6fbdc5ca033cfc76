/** Signs an account in through the whole OIDC flow of a harness: /auth/start, the fake provider's code, the callback. */
import type { FakeProvider } from './fake_oidc_provider.ts';
import type { Harness } from './harness.ts';

/** Signs `sub` in with these claims; the callback's answer. */
export async function signInWith(
  h: Harness,
  provider: FakeProvider,
  sub: string,
  claims: Record<string, unknown>,
): Promise<Response> {
  const start = await h.request('/auth/start');
  const oidcCookie = (start.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const url = new URL(start.headers.get('location') ?? '');
  const code = provider.issueCode({
    claims: { sub, ...claims },
    codeChallenge: url.searchParams.get('code_challenge') ?? '',
  });
  const query = new URLSearchParams({ state: url.searchParams.get('state') ?? '', code });
  return h.request(`/admin/callback?${query}`, { headers: { cookie: oidcCookie } }, '198.51.100.30');
}
