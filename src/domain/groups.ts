/**
 * Groups as the console shows them (docs/contract.md section 19): a group is known when an account
 * is in it or when it owns a device. Handing over moves devices between owners in batches.
 */

/** A member of a group: a known account. */
export interface GroupMember {
  subject: string;
  display: string;
  disabledAt: number | null;
}

/** A group with its members (the first few, and how many) and its number of devices. */
export interface GroupSummary {
  /** The name, without `group:`. */
  name: string;
  memberCount: number;
  /** The first members by subject, at most GROUP_MEMBERS_SHOWN (the list) or GROUP_MEMBERS_MAX (the page). */
  members: GroupMember[];
  devices: number;
}

/** Members shown per group on the groups list; the group's page shows up to GROUP_MEMBERS_MAX. */
export const GROUP_MEMBERS_SHOWN = 5;
export const GROUP_MEMBERS_MAX = 500;

/**
 * How a store hands many devices over (store.handOverPace): devices a transaction, with their
 * runs, and the pause after each as a multiple of its time.
 */
export interface HandOverPace {
  readonly batch: number;
  readonly pause: number;
}

/** A device handed over, and the owner it had. */
export interface HandedOver {
  device: string;
  from: string;
}

/** The groups list's cursor: the last name shown, as it is (a name may hold any character but a control one). */
export const GROUPS_CURSOR = /^[^\p{Cc}\p{Cs}]{1,128}$/u;
