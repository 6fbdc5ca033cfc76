/**
 * POST /enroll-tokens: admin only. Mints a single-use token (stored only as its hash) and shows
 * the link from the supplied link builder once; the token never goes into a URL or a log record.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { clientAddress } from '../http/client_address.ts';
import { randomToken, secretHash } from '../crypto/random.ts';
import { SUBJECT } from '../domain/ids.ts';
import { page } from '../http/responses.ts';
import { mintResultPage } from '../views/mint_result.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { chrome } from './page_helpers.ts';

export function enrollTokenMint(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenMintHandler(c) {
    const session = c.get('session');
    const owner = (c.get('form').get('owner') ?? '').trim() || session.subject;
    if (!SUBJECT.test(owner)) return fail(c, 'badOwner');
    const token = randomToken(32);
    const now = ctx.clock.now();
    const expiresAt = now + ctx.config.enrollTokenTtlSeconds * 1000;
    await ctx.store.createEnrollToken({
      hash: secretHash(token),
      owner,
      createdBy: session.subject,
      createdAt: now,
      expiresAt,
    });
    ctx.logger.log('info', 'enroll_token.minted', { account: session.subject, client: clientAddress(c), owner });
    const link = ctx.linkBuilder({ token, owner, expiresAt });
    return page(c, mintResultPage(chrome(ctx, c), { link, owner, expiresAt }));
  };
}
