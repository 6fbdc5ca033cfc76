/** Accounts (CONTRACT section 4): who signs in, and who is asking. */

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
