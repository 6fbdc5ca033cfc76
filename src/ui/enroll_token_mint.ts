/**
 * POST /enroll-tokens: admin only. Mints a single-use token (stored only as its hash) and shows
 * the link from the supplied link builder once; the token never goes into a URL or a log record.
 */
import type { Handler } from 'hono';
import { randomToken, secretHash } from '../crypto/random.ts';
import { SUBJECT, SUBJECT_RULE } from '../domain/ids.ts';
import { page, textError } from '../http/responses.ts';
import { mintResultPage } from '../views/mint_result.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { chrome } from './page_helpers.ts';

export function enrollTokenMint(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenMintHandler(c) {
    const session = c.get('session');
    const owner = (c.get('form').get('owner') ?? '').trim() || session.subject;
    if (!SUBJECT.test(owner)) return textError(c, 400, SUBJECT_RULE);
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
    ctx.logger.log('info', 'enroll_token.minted', { account: session.subject, owner });
    const link = ctx.linkBuilder({ token, owner, expiresAt });
    return page(c, mintResultPage(chrome(ctx, c), { link, owner, expiresAt }));
  };
}
