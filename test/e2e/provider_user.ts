/**
 * A person with a browser, without the browser: cookies kept per origin, redirects followed, and
 * the provider's own forms (test/e2e/provider.ts) filled in as a person would: its sign-in and
 * consent pages, and its sign-out confirmation. Fast enough for every store and every instance.
 */
import assert from 'node:assert/strict';

const MAX_REDIRECTS = 10;

export class ProviderUser {
  /** origin → cookie name → value. */
  readonly #cookies = new Map<string, Map<string, string>>();

  /** The value of cookie `name` that `origin` set, if it still holds. */
  cookie(origin: string, name: string): string | undefined {
    return this.#cookies.get(origin)?.get(name);
  }

  /** Requests `url` (a form post when `fields` is given), following redirects; returns the last answer and its URL. */
  async go(url: string, fields?: Record<string, string>): Promise<{ res: Response; url: string; text: string }> {
    let target = new URL(url);
    let init: RequestInit = fields
      ? {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(fields).toString(),
        }
      : {};
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const cookie = this.#header(target.origin);
      const res = await fetch(target, {
        ...init,
        headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) },
        redirect: 'manual',
      });
      this.#keep(target.origin, res.headers.getSetCookie());
      const location = res.headers.get('location');
      if (res.status < 300 || res.status > 399 || location === null) {
        return { res, url: target.href, text: await res.text() };
      }
      await res.body?.cancel();
      target = new URL(location, target);
      init = {};
    }
    throw new Error(`more than ${MAX_REDIRECTS} redirects from ${url}`);
  }

  /**
   * Signs in to the Paddock at `paddock` through the provider's pages as `login` (consenting when
   * asked); returns Paddock's session cookie (`service_admin=…`).
   */
  async signIn(paddock: string, login: string): Promise<string> {
    let page = await this.go(`${paddock}/auth/start`);
    for (let step = 0; step < 4 && new URL(page.url).origin !== paddock; step++) {
      assert.equal(page.res.status, 200, `${page.url}: ${page.text}`);
      const action = formAction(page.text, page.url);
      if (page.text.includes('name="prompt" value="login"')) {
        page = await this.go(action, { prompt: 'login', login, password: 'any password' });
      } else {
        assert.match(page.text, /name="prompt" value="consent"/, page.text);
        page = await this.go(action, { prompt: 'consent' });
      }
    }
    assert.equal(page.url, `${paddock}/`, `signed in to Paddock: ${page.text.slice(0, 500)}`);
    const session = this.cookie(paddock, 'service_admin');
    assert.ok(session, 'Paddock set its session cookie');
    return `service_admin=${session}`;
  }

  /**
   * Signs out at the provider as a person does on its end-session page: "Yes, sign me out". The
   * provider posts its logout tokens before it answers the confirmation.
   */
  async signOutAtProvider(issuer: string): Promise<void> {
    const page = await this.go(`${issuer}/session/end`);
    assert.equal(page.res.status, 200, page.text);
    assert.match(page.text, /Do you want to sign-out from/);
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(xsrf, page.text);
    const done = await this.go(formAction(page.text, page.url), { xsrf, logout: 'yes' });
    assert.equal(done.res.status, 200, done.text);
    assert.match(done.text, /Sign-out Success/);
  }

  #header(origin: string): string {
    return [...(this.#cookies.get(origin) ?? [])].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** Keeps what Set-Cookie says, by name (paths do not matter to one person's steps in turn). */
  #keep(origin: string, setCookies: string[]): void {
    const jar = this.#cookies.get(origin) ?? new Map<string, string>();
    this.#cookies.set(origin, jar);
    for (const line of setCookies) {
      const [pair = '', ...attributes] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const expired = attributes.some((a) => {
        const [key = '', v = ''] = a.split('=').map((s) => s.trim());
        if (/^max-age$/i.test(key)) return Number(v) <= 0;
        return /^expires$/i.test(key) && Date.parse(v) <= Date.now();
      });
      if (expired || value === '') jar.delete(name);
      else jar.set(name, value);
    }
  }
}

/** The action of the page's first form, resolved against the page's URL. */
function formAction(html: string, pageUrl: string): string {
  const action = /<form[^>]*\saction="([^"]+)"/.exec(html)?.[1];
  assert.ok(action, `a form on ${pageUrl}`);
  return new URL(action.replaceAll('&amp;', '&'), pageUrl).href;
}
