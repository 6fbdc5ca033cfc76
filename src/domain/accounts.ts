/** Accounts (docs/contract.md section 4): who signs in, and who is asking. */

/**
 * Who is asking: admins see everything, other accounts what they own, by their subject or through
 * one of their groups (docs/contract.md section 19).
 */
export interface Viewer {
  subject: string;
  admin: boolean;
  /**
   * The account's groups (names, without `group:`), as the store holds them when the request came
   * in (store.accountGroups): absent means none. Never what makes an administrator.
   */
  groups?: readonly string[];
}

export interface Account {
  subject: string;
  display: string;
  lastSignInAt: number;
}

/** What a sign-in records: the account, and the admin flag this sign-in gave it (docs/contract.md section 14). */
export interface SignIn extends Account {
  admin: boolean;
}

/**
 * An account as it stands now (docs/contract.md section 14): the admin flag of its latest sign-in,
 * which its tokens act with, and when it was disabled (null: it is not).
 */
export interface AccountState extends SignIn {
  disabledAt: number | null;
}

/** An account with what it owns, from the counts table (store/accounts.ts). */
export interface AccountSummary extends AccountState {
  devices: number;
  runs: number;
}

/** The break-glass account's subject (docs/contract.md section 4): it cannot be disabled. */
export function breakGlassSubject(adminUser: string): string {
  return `local:${adminUser}`;
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
