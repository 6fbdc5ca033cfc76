/**
 * What the console and the API show of a delivery attempt (docs/decisions.md, "Webhook attempts
 * are no port scanner"): for an answer, its status code and its duration to two significant
 * figures; for a failure, one coarse class and no duration. The error's detail (errno, TLS alert,
 * the kind of a refused address) and the exact time stay in the store and in the
 * `webhook.attempted` log record, for whoever runs the server: an administrator who may aim an
 * endpoint anywhere must not learn from the page which ports of an address are open.
 */

/** Every class a failed attempt is shown as. */
export const ATTEMPT_FAILURES = [
  'could not connect',
  'timed out',
  'TLS failed',
  'refused: address not allowed',
  'refused: URL not allowed',
] as const;

export type AttemptFailure = (typeof ATTEMPT_FAILURES)[number];

/**
 * The TLS errors of node and OpenSSL, as send.ts records them (their code, lower-case): the
 * certificate checks (X509_V_ERR_* names: `cert_has_expired`, `depth_zero_self_signed_cert`,
 * `unable_to_verify_leaf_signature`, …) and the handshake's (`err_ssl_*`, `err_tls_*`, `eproto`).
 */
const TLS = /^(err_ssl_|err_tls_|unable_to_|eproto$|hostname_mismatch$|invalid_ca$|invalid_purpose$)|cert|crl/;

/** The class of an attempt's recorded error (send.ts and sender.ts write them); anything unknown could not connect. */
export function failureClass(error: string): AttemptFailure {
  if (error.startsWith('refused: '))
    return /address/.test(error) ? 'refused: address not allowed' : 'refused: URL not allowed';
  if (error === 'timeout' || error === 'etimedout') return 'timed out';
  if (TLS.test(error)) return 'TLS failed';
  return 'could not connect';
}

/** An answer's duration to two significant figures (1234 ms is 1200 ms); a failure's is not shown. */
export function shownDuration(statusCode: number | null, durationMs: number): number | null {
  if (statusCode === null) return null;
  const step = 10 ** Math.max(0, Math.floor(Math.log10(Math.max(durationMs, 1))) - 1);
  return Math.round(durationMs / step) * step;
}

/** An attempt as the doors show it. */
export function shownAttempt(a: { statusCode: number | null; error: string | null; durationMs: number }): {
  statusCode: number | null;
  error: AttemptFailure | null;
  durationMs: number | null;
} {
  return {
    statusCode: a.statusCode,
    error: a.statusCode === null ? failureClass(a.error ?? '') : null,
    durationMs: shownDuration(a.statusCode, a.durationMs),
  };
}

/** An endpoint's last outcome (a status code, or an error) as the doors show it. */
export function shownOutcome(outcome: string | null): string | null {
  return outcome === null || /^\d{3}$/.test(outcome) ? outcome : failureClass(outcome);
}
