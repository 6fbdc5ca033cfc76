/**
 * Back-channel logout (docs/contract.md section 17): the identity provider ended a sign-in, so the
 * Paddock sessions it started end, on every instance at once (the guard reads the session's row
 * on every request). A token naming `sid` ends the sessions of that sign-in (of `sub` only, when
 * it names one too); one naming only `sub` ends every session of the account. The account is not
 * disabled: the provider may let it sign in again.
 */
import { EVENTS } from '../events/catalogue.ts';
import type { LogoutRequest } from '../oidc/logout_token.ts';
import type { ActionDeps } from './deps.ts';

/** The account of an OIDC subject, as sign-in names it (console/auth_callback.ts). */
export const oidcSubject = (sub: string): string => `oidc:${sub}`;

export async function endSessionsByProvider(
  deps: ActionDeps<'endSessionsBySid' | 'endSessionsOf'>,
  request: Pick<LogoutRequest, 'sub' | 'sid'>,
): Promise<Array<{ account: string; sessions: number }>> {
  const now = deps.clock.now();
  const account = request.sub === undefined ? undefined : oidcSubject(request.sub);
  let ended: Array<{ account: string; sessions: number }>;
  if (request.sid !== undefined) {
    ended = (await deps.store.endSessionsBySid(request.sid, account, now)).map((e) => ({
      account: e.subject,
      sessions: e.sessions,
    }));
  } else if (account !== undefined) {
    ended = [{ account, sessions: await deps.store.endSessionsOf(account, now) }];
  } else ended = [];
  // A token naming its account is recorded even when nothing was live: the provider's word is evidence.
  if (ended.length === 0 && account !== undefined) ended = [{ account, sessions: 0 }];
  for (const e of ended) await deps.logger.emit(EVENTS.sessionEndedByProvider, e);
  return ended;
}
