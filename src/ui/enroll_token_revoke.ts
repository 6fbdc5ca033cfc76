/**
 * POST /enroll-tokens/{id}/revoke: admin only. Revokes an outstanding token by its public id; it
 * enrolls nothing more. An unknown id, or one no longer outstanding, is 404. Logged.
 */
import type { Handler } from 'hono';
import { TOKEN_PUBLIC_ID } from '../domain/enroll_tokens.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import { seeOther } from '../http/responses.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { setNotice } from './notice.ts';

export function enrollTokenRevoke(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenRevokeHandler(c) {
    const id = c.req.param('id') ?? '';
    if (!TOKEN_PUBLIC_ID.test(id) || !(await ctx.store.revokeEnrollToken(id, ctx.clock.now())))
      return fail(c, 'enrollTokenNotFound');
    ctx.logger.log('info', 'enroll_token.revoked', {
      account: c.get('session').subject,
      client: clientAddress(c),
      token: id,
    });
    setNotice(ctx, c, { kind: 'token-revoked', token: id });
    return seeOther(c, '/enroll-tokens');
  };
}
