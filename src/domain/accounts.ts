/** Accounts (docs/contract.md section 4): who signs in, and who is asking. */

/** Who is asking: admins see everything, other accounts only what they own. */
export interface Viewer {
  subject: string;
  admin: boolean;
}

export interface Account {
  subject: string;
  display: string;
  lastSignInAt: number;
}

/** An account with what it owns, from the counts table (store/accounts.ts). */
export interface AccountSummary extends Account {
  devices: number;
  runs: number;
}

/**
 * Who acts, for the actions layer (src/actions): the viewer's scope, and the client address the
 * audit trail records (null when nothing came over the network: the sweepers).
 */
export interface Actor extends Viewer {
  client: string | null;
}

/** The sweepers act as `system` (docs/contract.md section 9), with every device in scope and no client. */
export const SYSTEM_ACTOR: Actor = Object.freeze({ subject: 'system', admin: true, client: null });
