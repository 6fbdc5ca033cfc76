/**
 * The confirmation shown once after a redirect (303 to /devices or /runs carries no query, per
 * CONTRACT section 5): a short-lived cookie with the same attributes as the others, read and
 * cleared by the next page. It holds only ids; the text is fixed here, so nothing is injected.
 */
import type { Context } from 'hono';
import { clearCookie, readCookie, setCookie } from '../http/cookies.ts';
import type { Ctx } from './deps.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';

export const NOTICE_COOKIE = 'service_notice';

export type Notice = { kind: 'revoked'; device: string } | { kind: 'deleted'; device: string; run: string };

export function setNotice(ctx: Ctx, c: Context, notice: Notice): void {
  const ids = notice.kind === 'revoked' ? [notice.device] : [notice.device, notice.run];
  const value = Buffer.from(JSON.stringify([notice.kind, ...ids])).toString('base64url');
  setCookie(c, NOTICE_COOKIE, value, { secure: ctx.config.secure, maxAge: 60 });
}

/** The notice's text, or undefined; the cookie is cleared once read. */
export function takeNotice(ctx: Ctx, c: Context): string | undefined {
  const value = readCookie(c, NOTICE_COOKIE);
  if (value === undefined) return undefined;
  clearCookie(c, NOTICE_COOKIE, ctx.config.secure);
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields)) return undefined;
  const [kind, device, run] = fields as unknown[];
  if (typeof device !== 'string' || !DEVICE_ID.test(device)) return undefined;
  if (kind === 'revoked' && fields.length === 2) return `Device ${device} was revoked: its uploads are now refused.`;
  if (kind === 'deleted' && fields.length === 3 && typeof run === 'string' && RUN_ID.test(run)) {
    return `Run ${run} of device ${device} was deleted.`;
  }
  return undefined;
}
