/**
 * The authenticator of the second-factor tests: otplib computes the codes (never Paddock's own
 * RFC 6238 code), and the enrollment helper goes through the pages as an operator would.
 */
import assert from 'node:assert/strict';
import { authenticator } from 'otplib';
import { decodeQrSvg } from '../e2e/qr.ts';
import { type Harness, form } from './harness.ts';

/** The code an authenticator app shows at `ms` for the base32 `secret`. */
export function codeAt(secret: string, ms: number): string {
  return authenticator.clone({ epoch: ms }).generate(secret);
}

export const BREAK_GLASS = { subject: 'local:admin', display: 'admin', admin: true } as const;

export interface Enrolled {
  secret: string;
  recoveryCodes: string[];
  /** The enrollment page as shown, and its sealed `pending` field. */
  enrollPage: string;
  pending: string;
}

/** The secret of an enrollment page, read from its QR code (an otpauth URI) and checked against its text. */
export function secretOfPage(page: string): { secret: string; uri: URL; pending: string } {
  const svg = /<svg[\s\S]*?<\/svg>/.exec(page)?.[0] ?? '';
  const uri = new URL(decodeQrSvg(svg) ?? 'missing:');
  const secret = uri.searchParams.get('secret') ?? '';
  const text = /id="secret" readonly size="40" value="([A-Z2-7 ]+)"/.exec(page)?.[1] ?? '';
  assert.equal(text.replaceAll(' ', ''), secret, 'the text and the QR code carry the same secret');
  const pending = /name="pending" value="([^"]+)"/.exec(page)?.[1] ?? '';
  return { secret, uri, pending };
}

/** Enrolls the break-glass account through GET and POST /totp, confirming with otplib's current code. */
export async function enrollTotp(h: Harness): Promise<Enrolled> {
  const { cookie, csrf } = h.signIn(BREAK_GLASS);
  const shown = await h.request('/totp', { headers: { cookie } });
  assert.equal(shown.status, 200);
  const enrollPage = await shown.text();
  const { secret, pending } = secretOfPage(enrollPage);
  const res = await h.request('/totp', form({ csrf, pending, code: codeAt(secret, h.clock.now()) }, cookie));
  assert.equal(res.status, 200);
  const page = await res.text();
  const box = /<textarea id="recovery"[^>]*>([^<]*)<\/textarea>/.exec(page)?.[1] ?? '';
  const recoveryCodes = box.split('\n').filter(Boolean);
  assert.equal(recoveryCodes.length, 10);
  // Past the confirming code's step, so a test's first sign-in code is a fresh one.
  h.clock.advance(30_000);
  return { secret, recoveryCodes, enrollPage, pending };
}
