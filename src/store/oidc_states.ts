/**
 * The sign-in states that came back (docs/contract.md section 23, "No amplification"): the
 * callback calls the provider's token endpoint only for a state that has not come back before.
 * A state proves by itself that this server issued it and when (session/oidc_state.ts), so
 * `/auth/start` writes nothing; a row is written only by a callback that brought a genuine state
 * of the last 600 s, and kept until that state could no longer be taken anyway. Kept in the store
 * so that every instance sharing it sees a state come back. Only a hash of each state is kept (a
 * state is a secret-like value). The row is the single use: one INSERT keyed by the hash, so of
 * two callbacks racing with one state, on any instances, exactly one inserts it.
 */
import { secretHash } from '../crypto/random.ts';
import type { Sql } from './sql.ts';
import type { OidcStatesStore } from './store.ts';

export const oidcStatesSql = {
  /** One row changed the first time; none when the state came back already (the primary key). */
  cameBack: 'INSERT INTO oidc_states (state_hash, expires_at) VALUES (?, ?) ON CONFLICT (state_hash) DO NOTHING',
  /** The minute sweep (index oidc_states_expires_at): the oldest expired rows, a batch at a time. */
  prune: `DELETE FROM oidc_states WHERE state_hash IN (
    SELECT state_hash FROM oidc_states WHERE expires_at <= ? ORDER BY expires_at LIMIT ?)`,
} as const;

export function oidcStatesStore(db: Sql): OidcStatesStore {
  return {
    // A critical write: an operator must be able to sign in to free a full disk.
    async oidcStateCameBack(state, expiresAt) {
      return (await db.critical(oidcStatesSql.cameBack, secretHash(state), expiresAt)) === 1;
    },
    pruneOidcStates: (now, limit) => db.run(oidcStatesSql.prune, now, limit),
  };
}
