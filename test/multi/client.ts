/** What the two-instance tests do over HTTP: sign in as admin, mint, enroll and upload. */
import assert from 'node:assert/strict';
import { shownAccessToken } from '../support/harness.ts';

export function consoleClient(password: () => string) {
  const form = (fields: Record<string, string>, cookie?: string): RequestInit => ({
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...(cookie ? { cookie } : {}) },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });

  const login = (base: string, secret: string) => fetch(`${base}/login`, form({ username: 'admin', password: secret }));

  /** Signs in with the current password; returns the session cookie and a CSRF token. */
  async function signIn(base: string) {
    const res = await login(base, password());
    assert.equal(res.status, 303);
    const cookie = (res.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const page = await (await fetch(`${base}/devices`, { headers: { cookie } })).text();
    return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '' };
  }

  async function mintToken(base: string): Promise<string> {
    const { cookie, csrf } = await signIn(base);
    const page = await (await fetch(`${base}/enroll-tokens`, form({ csrf }, cookie))).text();
    return /token=([A-Za-z0-9_-]{43})/.exec(page)?.[1] ?? '';
  }

  const enroll = (base: string, token: string) =>
    fetch(`${base}/v1/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });

  const upload = (base: string, credential: string, id: string, body = `run ${id}`) =>
    fetch(`${base}/v1/runs/${id}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full' },
      body,
    });

  /** Creates a personal access token of the admin through the console (`pdk_…`). */
  async function accessToken(base: string, name = 'a script'): Promise<string> {
    const { cookie, csrf } = await signIn(base);
    const page = await (await fetch(`${base}/tokens`, form({ csrf, name }, cookie))).text();
    const token = shownAccessToken(page);
    assert.ok(token, 'the token is shown once');
    return token;
  }

  async function device(base: string) {
    const res = await enroll(base, await mintToken(base));
    assert.equal(res.status, 201);
    return (await res.json()) as { device: string; credential: string };
  }

  return { form, login, signIn, mintToken, accessToken, enroll, upload, device };
}
