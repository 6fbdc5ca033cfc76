/** OIDC failures, each with the code that decides the status the callback answers with. */
export type OidcErrorCode = 'discovery_failed' | 'exchange_failed' | 'token_rejected';

export class OidcError extends Error {
  readonly code: OidcErrorCode;
  constructor(code: OidcErrorCode, message: string, cause?: unknown) {
    super(`oidc: ${message}`, cause === undefined ? undefined : { cause });
    this.name = 'OidcError';
    this.code = code;
  }
}
