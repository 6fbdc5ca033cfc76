/**
 * POST /tokens: any account. Creates a personal access token (CONTRACT section 11) with the
 * account's rights as they are now, stores only its hash, and shows the token on this answer only:
 * it never goes into a URL, a log record or a later page. Logged by public id.
 */
import type { Handler } from 'hono';
import { secretHash } from '../crypto/random.ts';
import {
  ACCESS_EXPIRES_IN_DEFAULT,
  ACCESS_EXPIRES_IN_MAX,
  ACCESS_EXPIRES_IN_MIN,
  ACCESS_TOKEN_NAME,
  newAccessToken,
} from '../domain/access_tokens.ts';
import { clientAddress } from '../http/client_address.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { accessTokenResultPage } from '../views/access_token_result.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { chrome } from './page_helpers.ts';
import { EVENTS } from '../events/catalogue.ts';

export function accessTokenCreate(ctx: Ctx): Handler<UiEnv> {
  return async function accessTokenCreateHandler(c) {
    const session = c.get('session');
    const form = c.get('form');
    const name = (form.get('name') ?? '').trim();
    if (!ACCESS_TOKEN_NAME.test(name)) return fail(c, 'badAccessTokenName');
    const expiresIn = (form.get('expires_in') ?? '').trim();
    const seconds =
      expiresIn === '' ? ACCESS_EXPIRES_IN_DEFAULT : /^[0-9]{1,10}$/.test(expiresIn) ? Number(expiresIn) : NaN;
    if (!(seconds >= ACCESS_EXPIRES_IN_MIN && seconds <= ACCESS_EXPIRES_IN_MAX))
      return fail(c, 'badAccessTokenExpiresIn');
    const token = newAccessToken();
    const now = ctx.clock.now();
    const record = await ctx.store.createAccessToken({
      hash: secretHash(token),
      subject: session.subject,
      admin: session.admin,
      name,
      createdAt: now,
      expiresAt: now + seconds * 1000,
    });
    await ctx.logger.emit(EVENTS.accessTokenCreated, {
      account: session.subject,
      client: clientAddress(c),
      token: record.publicId,
    });
    return page(c, accessTokenResultPage(chrome(ctx, c), { token, record }));
  };
}
