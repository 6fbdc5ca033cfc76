/** GET /login: the sign-in form, offering OIDC when it is available. */
import type { Handler } from 'hono';
import { page } from '../http/responses.ts';
import { loginPage } from '../views/login.ts';
import type { Ctx } from '../context/deps.ts';

export function loginShow(ctx: Ctx): Handler {
  return function loginShowHandler(c) {
    return page(c, loginPage({ oidcAvailable: ctx.oidcAvailable }));
  };
}
