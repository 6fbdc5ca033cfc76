/**
 * The lists that take only a cursor, `before`, each of the shape its store pages by: a blank,
 * repeated or malformed cursor is a bad cursor.
 */
import { ACCOUNTS_CURSOR, SEQ_CURSOR } from '../domain/paging.ts';
import { TOKEN_PUBLIC_ID } from '../domain/enroll_tokens.ts';
import { GROUPS_CURSOR } from '../domain/groups.ts';
import { cursor, cursorList } from './parameters.ts';

/** The outstanding enrollment tokens: the cursor is the public id of the last token shown. */
export const ENROLL_TOKENS = cursorList(cursor(TOKEN_PUBLIC_ID));

/** An account's own access tokens. */
export const ACCESS_TOKENS = cursorList(cursor(SEQ_CURSOR));

/** The known accounts: the cursor is the last sign-in and subject of the last account shown. */
export const ACCOUNTS = cursorList(cursor(ACCOUNTS_CURSOR));

/** A device's runs, on the device's page. */
export const DEVICE_RUNS = cursorList(cursor(SEQ_CURSOR));

/** The known groups (docs/contract.md section 19): the cursor is the name of the last group shown. */
export const GROUPS = cursorList(cursor(GROUPS_CURSOR));
