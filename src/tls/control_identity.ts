/**
 * The control plane's key pair and certificate: generated on first start and kept in the store,
 * so every instance sharing the store serves the same certificate and links carry one pin.
 */
import type { Store } from '../store/store.ts';
import { certificatePin, generateSelfSignedCertificate } from './self_signed.ts';

export interface ControlIdentity {
  certPem: string;
  keyPem: string;
  pin: string;
}

const SETTING = 'control_tls';

/** The configured certificate when there is one, else the one kept in the store (generated on first start). */
export async function loadControlIdentity(
  store: Store,
  controlHost: string,
  now: number,
  configured?: { certPem: string; keyPem: string },
): Promise<ControlIdentity> {
  if (configured) return { ...configured, pin: certificatePin(configured.certPem) };
  let stored = await store.getSetting(SETTING);
  if (stored === undefined) {
    const hostname = controlHost.replace(/^\[(.*)\]$/, '$1');
    const isIp = /^[0-9.]+$|:/.test(hostname);
    const generated = generateSelfSignedCertificate({
      commonName: hostname,
      dnsNames: isIp ? [] : [hostname],
      ipAddresses: isIp ? [hostname] : [],
      notBefore: new Date(now - 60_000),
      days: 3650,
    });
    // Two instances starting at once both generate; the first write wins and both use it.
    stored = await store.setSettingIfAbsent(SETTING, JSON.stringify(generated));
  }
  const { certPem, keyPem } = JSON.parse(stored) as { certPem: string; keyPem: string };
  return { certPem, keyPem, pin: certificatePin(certPem) };
}
