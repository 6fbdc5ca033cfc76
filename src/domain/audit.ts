/** The audit trail's records and filters (docs/contract.md section 9). */

/** One stored audit record (docs/contract.md section 9): what was done, by whom, from where, to what. */
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

/** The audit trail's filters (docs/contract.md section 9); absent fields do not filter. */
export interface AuditFilter {
  actor?: string | undefined;
  event?: string | undefined;
  device?: string | undefined;
  /** At or after this instant. */
  since?: number | undefined;
  /** Before this instant. */
  until?: number | undefined;
}
