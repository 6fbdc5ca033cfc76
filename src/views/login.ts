/** The sign-in page: break-glass form, and the OIDC link when a provider is available. */
import { html } from './html.ts';
import { layout } from './layout.ts';

export function loginPage(opts: { oidcAvailable: boolean; error?: boolean; username?: string }) {
  return layout(
    'Sign in',
    undefined,
    html`${opts.error ? html`<p role="alert"><strong>The username or password is incorrect.</strong></p>` : ''}
      ${
        opts.oidcAvailable
          ? html`<p><a href="/auth/start">Sign in with your identity provider</a></p>
              <h2>Break-glass sign-in</h2>`
          : ''
      }
      <form method="post" action="/login">
        <p>
          <label for="username">Username</label><br />
          <input id="username" name="username" autocomplete="username" required value="${opts.username ?? ''}" />
        </p>
        <p>
          <label for="password">Password</label><br />
          <input id="password" name="password" type="password" autocomplete="current-password" required />
        </p>
        <p>
          <label for="code">Code from the authenticator app, or a recovery code</label><br />
          <input id="code" name="code" autocomplete="one-time-code" aria-describedby="code-hint" />
          <br /><small id="code-hint">Only if a second factor is set up for this account; otherwise leave it empty.</small>
        </p>
        <p><button type="submit">Sign in</button></p>
      </form>`,
  );
}
