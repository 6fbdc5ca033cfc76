/**
 * The rules of a personal access token (docs/contract.md section 11): its shape, its public id, and the
 * create form's fields. The one place every form check, message and view reads them.
 */
import { randomToken } from '../crypto/random.ts';
import { VISIBLE_CHAR } from './names.ts';

/**
 * `pdk_` and 43 URL-safe base64 characters (256 random bits). The prefix lets secret scanners find
 * a leaked token.
 */
export const ACCESS_TOKEN = /^pdk_[A-Za-z0-9_-]{43,}$/;

export function newAccessToken(): string {
  return `pdk_${randomToken(32)}`;
}

/** How the tokens page names a token (`a_` + 96 random bits): it says nothing of the token. */
export const ACCESS_TOKEN_PUBLIC_ID = /^a_[A-Za-z0-9_-]{1,62}$/;

export function newAccessTokenPublicId(): string {
  return `a_${randomToken(12)}`;
}

/** `expires_in`, seconds: an hour to a year, thirty days when left empty. */
export const ACCESS_EXPIRES_IN_MIN = 3_600;
export const ACCESS_EXPIRES_IN_MAX = 31_536_000;
export const ACCESS_EXPIRES_IN_DEFAULT = 2_592_000;

export const ACCESS_EXPIRES_IN_RULE = `expires_in must be a whole number of seconds from ${ACCESS_EXPIRES_IN_MIN} to ${ACCESS_EXPIRES_IN_MAX}`;

/** `name`: what the account calls the token, 1 to 64 visible characters. */
export const ACCESS_TOKEN_NAME = new RegExp(`^${VISIBLE_CHAR}{1,64}$`, 'u');

export const ACCESS_TOKEN_NAME_RULE = 'name must be 1 to 64 printable characters';

/**
 * A token's scope (docs/contract.md sections 14 and 20): `read` is refused on every request that
 * would change something; `write` may do whatever its account may; `scim` is an administrator's
 * token for the identity provider, which works only under /scim/v2 (and nothing else works there).
 * Tokens made before scopes could write.
 */
export const TOKEN_SCOPES = ['read', 'write', 'scim'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];
export const TOKEN_SCOPE_DEFAULT: TokenScope = 'write';
export const TOKEN_SCOPE_RULE = 'scope must be read, write or scim';
export const SCIM_SCOPE_RULE = 'a token of the scim scope is for administrators only';

export function isTokenScope(value: string): value is TokenScope {
  return (TOKEN_SCOPES as readonly string[]).includes(value);
}

/** What creating a personal access token stores: the token only as its hash. */
export interface NewAccessToken {
  hash: string;
  subject: string;
  /** The account's admin right at creation, kept for the record: the token acts with its account's flag as it is now. */
  admin: boolean;
  scope: TokenScope;
  name: string;
  createdAt: number;
  expiresAt: number;
}

/** A personal access token as the tokens page shows it: never the token or its hash. */
export interface AccessToken {
  /** Random, URL-safe: how the tokens page names the token. */
  publicId: string;
  subject: string;
  admin: boolean;
  scope: TokenScope;
  name: string;
  createdAt: number;
  expiresAt: number;
  lastUsedAt: number | null;
  lastUsedClient: string | null;
  revokedAt: number | null;
}

/**
 * A live token as the API's lookup finds it, with its account as it stands now: the token acts
 * with the account's admin flag, and is refused while the account is disabled or its latest
 * sign-in is too old (docs/contract.md section 14). `account` is null when the account never signed in.
 */
export interface LiveAccessToken extends AccessToken {
  account: { admin: boolean; disabledAt: number | null; lastSignInAt: number } | null;
}
