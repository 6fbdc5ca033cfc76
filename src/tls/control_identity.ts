/**
 * The control plane's key pair and certificate, and the next key (docs/contract.md section 16):
 * generated on first start and kept in the store, so every instance sharing the store serves the
 * same certificate and links carry the same two pins. A key's certificate is reissued (issue 23)
 * before it expires and whenever it does not name the control host, always with the same key,
 * since devices pin the public key. `paddock rotate-control-key` makes the next key current (with
 * a certificate of its own) and a new next key; instances load the change while serving.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { StoreError } from '../store/errors.ts';
import { SECRET_SETTINGS } from '../store/sealed_settings.ts';
import type { Store } from '../store/store.ts';

/** What the identity needs of the store: its settings, shared by every instance. */
export type ControlKeyStore = Pick<Store, 'getSetting' | 'setSettingIfAbsent' | 'replaceSetting'>;
import { certificatePin, generateKeyPem, generateSelfSignedCertificate, keyPin } from './self_signed.ts';

export interface ControlIdentity {
  certPem: string;
  keyPem: string;
  /** The served key's pin. */
  pin: string;
  /** The pins devices are given, current first: the served key's and the next key's (one for a configured key). */
  pins: readonly string[];
}

/**
 * The store's setting holding the generated pair and the next key, as JSON `{certPem, keyPem,
 * nextKeyPem}`: one row, so that a rotation changes all three at once for every instance. A store
 * made before issue 36 has no `nextKeyPem` until it is first opened. Sealed in the store (issue 42).
 */
export const CONTROL_TLS_SETTING = SECRET_SETTINGS.controlTls;

interface StoredIdentity {
  certPem: string;
  keyPem: string;
  nextKeyPem?: string;
}

const DAY_MS = 86_400_000;
/** Under the 398 days browsers accept of a publicly trusted certificate, which tools hold all to. */
export const CERTIFICATE_DAYS = 397;
/** Reissued once fewer days than this are left: checked whenever the identity is loaded (serve.ts). */
export const RENEW_DAYS_BEFORE = 30;
/** Compare-and-set attempts before giving up: each failure means another instance changed the row. */
const ATTEMPTS = 5;

/** The configured certificate when there is one, else the one kept in the store (generated on first start). */
export async function loadControlIdentity(
  store: ControlKeyStore,
  controlHost: string,
  now: number,
  configured?: { certPem: string; keyPem: string },
): Promise<ControlIdentity> {
  if (configured) {
    const pin = certificatePin(configured.certPem);
    return { ...configured, pin, pins: [pin] };
  }
  const hostname = hostnameOf(controlHost);
  return changeStored(store, hostname, now, (stored) => {
    let due = stored;
    // A store made before the next key: it gets one now, and its links' one pin holds until the first rotation.
    if (due.nextKeyPem === undefined) due = { ...due, nextKeyPem: generateKeyPem() };
    // Instances renewing at once write certificates of the same key: whichever stays, the pin holds.
    if (reissueReason(due.certPem, hostname, now) !== undefined) due = { ...due, ...issue(hostname, now, due.keyPem) };
    return due;
  });
}

/**
 * The next key becomes the current one, with a new certificate, and a new next key is made. Returns
 * the pin no longer served and the new pins. The caller refuses a configured control certificate.
 */
export async function rotateControlKey(
  store: ControlKeyStore,
  controlHost: string,
  now: number,
): Promise<{ retired: string; identity: ControlIdentity }> {
  const hostname = hostnameOf(controlHost);
  // Creates the pair (and the next key of an older store) when it is missing, so there is a next key.
  await loadControlIdentity(store, controlHost, now);
  // The pair actually replaced: the last one read, should another instance have written in between.
  let replaced: StoredIdentity | undefined;
  const identity = await changeStored(store, hostname, now, (stored) => {
    replaced = stored;
    return { ...issue(hostname, now, stored.nextKeyPem), nextKeyPem: generateKeyPem() };
  });
  return { retired: certificatePin((replaced as StoredIdentity).certPem), identity };
}

/**
 * For a control key that may have been copied (`rotate-control-key --compromised`): both keys, the
 * served one and the next one every link and device already holds, are replaced by new ones at
 * once, so neither old pin is trusted by a device again and every device needs a new link.
 */
export async function replaceControlKeys(
  store: ControlKeyStore,
  controlHost: string,
  now: number,
): Promise<{ retired: string[]; identity: ControlIdentity }> {
  const hostname = hostnameOf(controlHost);
  let replaced: StoredIdentity | undefined;
  const identity = await changeStored(store, hostname, now, (stored) => {
    replaced = stored;
    return { ...issue(hostname, now), nextKeyPem: generateKeyPem() };
  });
  return { retired: replaced ? identityOf(replaced).pins.slice() : [], identity };
}

/**
 * Reads the stored identity (generating it when there is none) and writes `change(stored)` over it
 * unless that is the same object; another instance's write in between makes it read and try again.
 */
async function changeStored(
  store: ControlKeyStore,
  hostname: string,
  now: number,
  change: (stored: StoredIdentity) => StoredIdentity,
): Promise<ControlIdentity> {
  for (let attempt = 1; ; attempt++) {
    // Two instances starting at once both generate; the first write wins and both use it.
    const text =
      (await store.getSetting(CONTROL_TLS_SETTING)) ??
      (await store.setSettingIfAbsent(
        CONTROL_TLS_SETTING,
        JSON.stringify({ ...issue(hostname, now), nextKeyPem: generateKeyPem() }),
      ));
    const stored = JSON.parse(text) as StoredIdentity;
    const changed = change(stored);
    if (changed === stored || (await store.replaceSetting(CONTROL_TLS_SETTING, text, JSON.stringify(changed))))
      return identityOf(changed);
    if (attempt >= ATTEMPTS) throw new StoreError('control key', 'it kept changing while being updated');
  }
}

function identityOf(stored: StoredIdentity): ControlIdentity {
  const pin = certificatePin(stored.certPem);
  const pins = stored.nextKeyPem === undefined ? [pin] : [pin, keyPin(stored.nextKeyPem)];
  return { certPem: stored.certPem, keyPem: stored.keyPem, pin, pins };
}

function hostnameOf(controlHost: string): string {
  return controlHost.replace(/^\[(.*)\]$/, '$1');
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
