/**
 * The confirmation shown once after a redirect (303 to /devices or /runs carries no query, per
 * docs/contract.md section 5): a short-lived cookie with the same attributes as the others, read and
 * cleared by the next page. It holds only ids and counts, each checked again when read; the text is
 * fixed here, so nothing is injected.
 */
import type { Context } from 'hono';
import { clearCookie, readCookie, setCookie } from '../http/cookies.ts';
import type { Ctx } from '../context/deps.ts';
import type { BulkCounts } from '../actions/bulk.ts';
import { TOKEN_PUBLIC_ID } from '../domain/enroll_tokens.ts';
import { ACCESS_TOKEN_PUBLIC_ID } from '../domain/access_tokens.ts';
import { DEVICE_ID, RUN_ID } from '../domain/ids.ts';
import { MAX_LABELS } from '../domain/labels.ts';
import { WEBHOOK_ID } from '../domain/webhooks.ts';

export const NOTICE_COOKIE = 'service_notice';

export type Notice =
  | { kind: 'revoked' | 'approved' | 'rejected'; device: string }
  | { kind: 'deleted'; device: string; run: string }
  | { kind: 'renamed'; device: string }
  | { kind: 'rotation-asked'; device: string }
  | { kind: 'device-deleted'; device: string }
  | { kind: 'token-revoked'; token: string }
  | { kind: 'access-token-revoked'; token: string }
  | { kind: 'totp-disabled' }
  | { kind: 'session-ended' | 'account-enabled' }
  | { kind: 'sessions-ended'; count: number }
  | { kind: 'account-disabled'; count: number; handedOver: number }
  | { kind: 'owner-changed' | 'owner-unchanged'; device: string }
  | { kind: 'labelled'; device: string }
  | { kind: WebhookNoticeKind; webhook: string }
  | ({
      kind:
        | 'bulk-revoke'
        | 'bulk-delete'
        | 'bulk-delete-runs'
        | 'bulk-label'
        | 'bulk-unlabel'
        | 'bulk-approve'
        | 'bulk-reject'
        | 'bulk-owner';
    } & BulkCounts);

/** What was done to a webhook endpoint, and the sentence that confirms it. */
const WEBHOOK_NOTICES = {
  'webhook-tested': (id: string) => `A test message for webhook ${id} was queued.`,
  'webhook-enabled': (id: string) => `Webhook ${id} was enabled: its pending deliveries are sent again.`,
  'webhook-disabled': (id: string) => `Webhook ${id} was disabled: its deliveries wait until it is enabled.`,
  'webhook-unchanged': (id: string) => `Webhook ${id} was already so: nothing changed.`,
  'webhook-deleted': (id: string) => `Webhook ${id} and its deliveries were deleted.`,
  'webhook-redelivered': (id: string) => `The message was queued again for webhook ${id}, with the same message id.`,
} as const;
type WebhookNoticeKind = keyof typeof WEBHOOK_NOTICES;

const COUNT_KEYS = ['done', 'unchanged', 'notRevoked', 'unknown', 'full'] as const;

function fieldsOf(notice: Notice): unknown[] {
  switch (notice.kind) {
    case 'deleted':
      return [notice.kind, notice.device, notice.run];
    case 'revoked':
    case 'approved':
    case 'rejected':
    case 'renamed':
    case 'rotation-asked':
    case 'labelled':
    case 'device-deleted':
    case 'owner-changed':
    case 'owner-unchanged':
      return [notice.kind, notice.device];
    case 'token-revoked':
    case 'access-token-revoked':
      return [notice.kind, notice.token];
    case 'totp-disabled':
      return [notice.kind];
    case 'session-ended':
    case 'account-enabled':
      return [notice.kind];
    case 'sessions-ended':
      return [notice.kind, notice.count];
    case 'account-disabled':
      // Without devices handed over, the notice is the one it always was.
      return notice.handedOver === 0 ? [notice.kind, notice.count] : [notice.kind, notice.count, notice.handedOver];
    case 'webhook-tested':
    case 'webhook-enabled':
    case 'webhook-disabled':
    case 'webhook-unchanged':
    case 'webhook-deleted':
    case 'webhook-redelivered':
      return [notice.kind, notice.webhook];
    default:
      return [notice.kind, ...COUNT_KEYS.map((k) => notice[k])];
  }
}

export function setNotice(ctx: Ctx, c: Context, notice: Notice): void {
  const value = Buffer.from(JSON.stringify(fieldsOf(notice))).toString('base64url');
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
  return Array.isArray(fields) ? noticeText(fields as unknown[]) : undefined;
}

const isDevice = (v: unknown): v is string => typeof v === 'string' && DEVICE_ID.test(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function noticeText(fields: unknown[]): string | undefined {
  const [kind, device, run] = fields;
  if (kind === 'totp-disabled' && fields.length === 1)
    return 'The second factor is off: signing in needs only the password.';
  if (fields.length === 1 && kind === 'session-ended') return 'The session was ended: it is refused from now on.';
  if (fields.length === 1 && kind === 'account-enabled')
    return 'The account was enabled: it may sign in again, and its live tokens work again.';
  if (fields.length === 2 && isCount(device)) {
    if (kind === 'sessions-ended') return `${plural(device, 'other session', 'other sessions')} ended.`;
    if (kind === 'account-disabled')
      return `The account was disabled: ${plural(device, 'session', 'sessions')} ended; its tokens and its sign-in are refused.`;
  }
  if (kind === 'account-disabled' && fields.length === 3 && isCount(device) && isCount(run))
    return `The account was disabled: ${plural(device, 'session', 'sessions')} ended; its tokens and its sign-in are refused; ${plural(run, 'device was', 'devices were')} handed over.`;
  if (kind === 'token-revoked' && fields.length === 2 && typeof device === 'string' && TOKEN_PUBLIC_ID.test(device))
    return `Enrollment token ${device} was revoked: it enrolls no more devices.`;
  if (
    kind === 'access-token-revoked' &&
    fields.length === 2 &&
    typeof device === 'string' &&
    ACCESS_TOKEN_PUBLIC_ID.test(device)
  )
    return `Access token ${device} was revoked: it is refused from now on.`;
  if (
    fields.length === 2 &&
    typeof kind === 'string' &&
    Object.hasOwn(WEBHOOK_NOTICES, kind) &&
    typeof device === 'string' &&
    WEBHOOK_ID.test(device)
  )
    return WEBHOOK_NOTICES[kind as WebhookNoticeKind](device);
  if (fields.length === 2 && isDevice(device)) {
    if (kind === 'revoked') return `Device ${device} was revoked: its uploads are now refused.`;
    if (kind === 'approved') return `Device ${device} was approved: it may upload and take requests.`;
    if (kind === 'rejected') return `Device ${device} was rejected: it is revoked.`;
    if (kind === 'renamed') return `Device ${device} was renamed.`;
    if (kind === 'rotation-asked')
      return `Device ${device} is asked to rotate its credential: its next answer from Paddock says so.`;
    if (kind === 'labelled') return `The labels of device ${device} were saved.`;
    if (kind === 'device-deleted') return `Device ${device} and its runs were deleted.`;
    if (kind === 'owner-changed') return `Device ${device} was handed over, with its runs.`;
    if (kind === 'owner-unchanged') return `Device ${device} already belonged to that owner: nothing changed.`;
  }
  if (kind === 'deleted' && fields.length === 3 && isDevice(device) && typeof run === 'string' && RUN_ID.test(run))
    return `Run ${run} of device ${device} was deleted.`;
  const counts = fields.slice(1);
  if (fields.length !== 1 + COUNT_KEYS.length || !counts.every(isCount)) return undefined;
  const [done, unchanged, notRevoked, unknown, full] = counts as number[] as [number, number, number, number, number];
  const parts: string[] = [];
  if (kind === 'bulk-revoke') parts.push(`${plural(done, 'device', 'devices')} revoked`);
  else if (kind === 'bulk-delete') parts.push(`${plural(done, 'device', 'devices')} deleted with their runs`);
  else if (kind === 'bulk-delete-runs') parts.push(`${plural(done, 'run', 'runs')} deleted`);
  else if (kind === 'bulk-label') parts.push(`${plural(done, 'device', 'devices')} labelled`);
  else if (kind === 'bulk-unlabel') parts.push(`${plural(done, 'device', 'devices')} unlabelled`);
  else if (kind === 'bulk-approve') parts.push(`${plural(done, 'device', 'devices')} approved`);
  else if (kind === 'bulk-reject') parts.push(`${plural(done, 'device', 'devices')} rejected and revoked`);
  else if (kind === 'bulk-owner') parts.push(`${plural(done, 'device', 'devices')} handed over with their runs`);
  else return undefined;
  if (unchanged > 0 && (kind === 'bulk-label' || kind === 'bulk-unlabel')) parts.push(`${unchanged} already so`);
  else if (unchanged > 0 && (kind === 'bulk-approve' || kind === 'bulk-reject'))
    parts.push(`${unchanged} not waiting for approval: nothing done`);
  else if (unchanged > 0 && kind === 'bulk-owner') parts.push(`${unchanged} already that owner's`);
  else if (unchanged > 0) parts.push(`${unchanged} already revoked`);
  if (full > 0) parts.push(`${full} not labelled: already ${MAX_LABELS} labels`);
  if (notRevoked > 0) parts.push(`${notRevoked} not deleted: revoke first`);
  if (unknown > 0) parts.push(`${unknown} not found or not yours: nothing done`);
  return `${parts.join('; ')}.`;
}
