/**
 * POST /tokens/{id}/revoke: any account, its own tokens only (an admin too: another account's
 * token is 404 here, as an unknown one). Logged.
 */
import type { Handler } from 'hono';
import { ACCESS_TOKEN_PUBLIC_ID } from '../domain/access_tokens.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { setNotice } from './notice.ts';
import { EVENTS } from '../events/catalogue.ts';

export function accessTokenRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokenRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    const subject = c.get('session').subject;
    if (!ACCESS_TOKEN_PUBLIC_ID.test(id) || !(await ctx.store.revokeAccessToken(subject, id, ctx.clock.now())))
      return fail(c, 'accessTokenNotFound');
    await ctx.logger.emit(EVENTS.accessTokenRevoked, { account: subject, client: clientAddress(c), token: id });
    setNotice(ctx, c, { kind: 'access-token-revoked', token: id });
    return seeOther(c, '/tokens');
  };
}
