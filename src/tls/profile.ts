/**
 * The TLS profile of every certificate Paddock serves: Mozilla's "intermediate" configuration
 * (https://wiki.mozilla.org/Security/Server_Side_TLS, version 5.7) without its DHE suites, so
 * TLS 1.2 offers only ECDHE key exchange with AEAD ciphers (no CBC, hence no LUCKY13), plus TLS 1.3.
 */
import type { SecureContextOptions } from 'node:tls';

/** TLS 1.3's three suites, then TLS 1.2's ECDHE + AES-GCM or ChaCha20-Poly1305, in Mozilla's order. */
export const CIPHERS = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
  'ECDHE-ECDSA-AES128-GCM-SHA256',
  'ECDHE-RSA-AES128-GCM-SHA256',
  'ECDHE-ECDSA-AES256-GCM-SHA384',
  'ECDHE-RSA-AES256-GCM-SHA384',
  'ECDHE-ECDSA-CHACHA20-POLY1305',
  'ECDHE-RSA-CHACHA20-POLY1305',
].join(':');

export const TLS_PROFILE = {
  minVersion: 'TLSv1.2',
  ciphers: CIPHERS,
  ecdhCurve: 'X25519:prime256v1:secp384r1',
  // Every suite offered is strong, so the client's order (it knows whether it has AES in hardware) wins.
  honorCipherOrder: false,
} as const satisfies SecureContextOptions;
