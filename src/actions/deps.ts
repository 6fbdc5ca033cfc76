/**
 * What the actions are built from: each action or query (src/actions) is a plain function of the
 * dependencies it needs, the Actor (domain/accounts.ts) and its input, and returns a typed outcome.
 * No HTTP here: the doors (console, API) and the sweepers call the same functions, and the doors
 * alone turn an outcome into an answer. The handlers' Ctx (context/deps.ts) has all of these.
 */
import type { Clock } from '../clock.ts';
import type { Actor } from '../domain/accounts.ts';
import type { Logger } from '../log/logger.ts';
import type { Store } from '../store/store.ts';

export interface ActionDeps<S extends keyof Store = keyof Store> {
  store: Pick<Store, S>;
  logger: Logger;
  clock: Clock;
}

/** Who acted, as an event's `account` and `client` (the system actor acts from no client). */
export function actedBy(actor: Actor): { account: string; client?: string } {
  return actor.client === null ? { account: actor.subject } : { account: actor.subject, client: actor.client };
}
