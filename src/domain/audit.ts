/** The audit trail's records and filters (CONTRACT section 9). */

/**
 * The audited events (the audit trail's event filter offers them); uploads and operational
 * records (server.*, store.*) are not among them. The audit logger stores only these
 * (audit/audit_record.ts).
 */
export const AUDITED_EVENTS: ReadonlySet<string> = new Set([
  // CONTRACT section 8.
  'login.local.failed',
  'login.local.succeeded',
  'login.oidc.exchange_failed',
  'login.oidc.token_rejected',
  'login.oidc.succeeded',
  'access.admin_refused',
  'device.revoked',
  'run.deleted',
  'enroll_token.minted',
  // CONTRACT section 9: the console's actions (and the sweeper's, as `system`).
  'device.renamed',
  'device.deleted',
  'enroll_token.revoked',
  'device.enrolled',
  // CONTRACT section 10.
  'run.refused_privacy',
  'run.downloaded',
  'runs.swept',
  // CONTRACT section 11.
  'access_token.created',
  'access_token.used',
  'access_token.revoked',
]);

/** One stored audit record (CONTRACT section 9): what was done, by whom, from where, to what. */
export interface AuditRecord {
  at: number;
  event: string;
  /** The acting subject, `system` for automatic actions; null when none is known (a failed sign-in by OIDC). */
  account: string | null;
  client: string | null;
  device: string | null;
  run: string | null;
  /** The record's other fields, short; never a secret. */
  detail: string;
}

/** The audit trail's filters (CONTRACT section 9); absent fields do not filter. */
export interface AuditFilter {
  actor?: string | undefined;
  event?: string | undefined;
  device?: string | undefined;
  /** At or after this instant. */
  since?: number | undefined;
  /** Before this instant. */
  until?: number | undefined;
}
