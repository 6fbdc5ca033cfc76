/**
 * POST /enroll-tokens: admin only. Mints a token (stored only as its hash) with the optional fields
 * of CONTRACT section 9 and shows the link from the supplied link builder once; the token never
 * goes into a URL or a log record.
 */
import { fail } from '../http/failures.ts';
import type { Handler } from 'hono';
import { randomToken, secretHash } from '../crypto/random.ts';
import { SUBJECT } from '../domain/ids.ts';
import { clientAddress } from '../http/client_address.ts';
import { page } from '../http/responses.ts';
import { mintResultPage } from '../views/mint_result.ts';
import type { Ctx, UiEnv } from './deps.ts';
import { readMintFields } from './enroll_token_fields.ts';
import { chrome } from './page_helpers.ts';

export function enrollTokenMint(ctx: Ctx): Handler<UiEnv> {
  return async function enrollTokenMintHandler(c) {
    const session = c.get('session');
    const form = c.get('form');
    const owner = (form.get('owner') ?? '').trim() || session.subject;
    if (!SUBJECT.test(owner)) return fail(c, 'badOwner');
    const read = readMintFields(form, ctx.config.enrollTokenTtlSeconds);
    if (!read.ok) return fail(c, read.failure);
    const { expiresInSeconds, uses, name, note, maxPrivacy } = read.fields;
    const token = randomToken(32);
    const now = ctx.clock.now();
    const record = await ctx.store.createEnrollToken({
      hash: secretHash(token),
      owner,
      createdBy: session.subject,
      createdAt: now,
      expiresAt: now + expiresInSeconds * 1000,
      uses,
      name,
      note,
      maxPrivacy,
    });
    ctx.logger.log('info', 'enroll_token.minted', {
      account: session.subject,
      client: clientAddress(c),
      owner,
      token: record.publicId,
      uses,
      max_privacy: maxPrivacy,
    });
    const link = ctx.linkBuilder({ ...record, token });
    return page(c, mintResultPage(chrome(ctx, c), { link, token: record }));
  };
}
