/**
 * The control plane's key pair and certificate: generated on first start and kept in the store,
 * so every instance sharing the store serves the same certificate and links carry one pin. The
 * key is kept for good; its certificate is reissued (issue 23) before it expires and whenever it
 * does not name the control host, always with the same key, since devices pin the public key.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import type { Store } from '../store/store.ts';
import { certificatePin, generateSelfSignedCertificate } from './self_signed.ts';

export interface ControlIdentity {
  certPem: string;
  keyPem: string;
  pin: string;
}

/** The store's setting holding the generated pair, as JSON `{certPem, keyPem}`. */
export const CONTROL_TLS_SETTING = 'control_tls';

const DAY_MS = 86_400_000;
/** Under the 398 days browsers accept of a publicly trusted certificate, which tools hold all to. */
export const CERTIFICATE_DAYS = 397;
/** Reissued once fewer days than this are left: renewals are checked at start and twice a day. */
export const RENEW_DAYS_BEFORE = 30;

/** The configured certificate when there is one, else the one kept in the store (generated on first start). */
export async function loadControlIdentity(
  store: Store,
  controlHost: string,
  now: number,
  configured?: { certPem: string; keyPem: string },
): Promise<ControlIdentity> {
  if (configured) return { ...configured, pin: certificatePin(configured.certPem) };
  const hostname = controlHost.replace(/^\[(.*)\]$/, '$1');
  let stored = await store.getSetting(CONTROL_TLS_SETTING);
  if (stored === undefined) {
    // Two instances starting at once both generate; the first write wins and both use it.
    stored = await store.setSettingIfAbsent(CONTROL_TLS_SETTING, JSON.stringify(issue(hostname, now)));
  }
  let pair = JSON.parse(stored) as { certPem: string; keyPem: string };
  if (reissueReason(pair.certPem, hostname, now) !== undefined) {
    // Instances renewing at once write certificates of the same key: whichever stays, the pin holds.
    pair = issue(hostname, now, pair.keyPem);
    await store.setSetting(CONTROL_TLS_SETTING, JSON.stringify(pair));
  }
  return { ...pair, pin: certificatePin(pair.certPem) };
}

function issue(hostname: string, now: number, keyPem?: string) {
  const ip = isIP(hostname) !== 0;
  return generateSelfSignedCertificate({
    commonName: hostname,
    dnsNames: ip ? [] : [hostname],
    ipAddresses: ip ? [hostname] : [],
    notBefore: new Date(now - 60_000),
    days: CERTIFICATE_DAYS,
    keyPem,
  });
}

/** Why the generated certificate must be reissued now, or undefined while it is good. */
export function reissueReason(certPem: string, hostname: string, now: number): string | undefined {
  const cert = new X509Certificate(certPem);
  if (!namesHost(cert, hostname)) return `it does not name ${hostname}`;
  const left = daysLeft(cert, now);
  if (left < RENEW_DAYS_BEFORE) return `${left} days are left`;
  return undefined;
}

/** Whether the certificate is valid for the host name or IP address (its subjectAltName, RFC 6125). */
export function namesHost(cert: X509Certificate, hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1');
  return isIP(host) !== 0 ? cert.checkIP(host) !== undefined : cert.checkHost(host, { subject: 'never' }) !== undefined;
}

/** Whole days until the certificate expires (negative once it has). */
export function daysLeft(cert: X509Certificate, now: number): number {
  return Math.floor((Date.parse(cert.validTo) - now) / DAY_MS);
}
