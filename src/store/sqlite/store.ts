/**
 * The Store on node:sqlite: the domain files' statements on the one connection (db.ts), with
 * enrollment and uploads, which need transactions, in devices.ts and runs.ts.
 */
import { accessTokensStore } from '../access_tokens.ts';
import { totpStore } from '../totp.ts';
import { accountsStore } from '../accounts.ts';
import { accountGroupsStore } from '../account_groups.ts';
import type { ListOptions } from '../owners_reach.ts';
import { auditStore } from '../audit.ts';
import { auditFeedStore, SQLITE_SETTLED } from '../audit_feed.ts';
import { devicesStore } from '../devices.ts';
import { enrollTokensStore } from '../enroll_tokens.ts';
import { retentionStore } from '../retention.ts';
import { dashboardStore } from '../dashboard.ts';
import { runsStore } from '../runs.ts';
import { settingsStore } from '../stored_settings.ts';
import { signInStore } from '../sign_in.ts';
import type { Store } from '../store.ts';
import { webhooksStore } from '../webhooks.ts';
import { collectionsStore } from '../collections.ts';
import { factsStore } from '../facts.ts';
import { credentialsStore } from '../credentials.ts';
import { oidcStatesStore } from '../oidc_states.ts';
import { sqliteScimWrite } from './scim.ts';
import { scimStore } from '../scim.ts';
import { localWakeups } from '../wakeups.ts';
import { openDb } from './db.ts';
import { sqliteDeviceTransactions } from './devices.ts';
import { sqliteOwnerTransactions } from './owners.ts';
import { ownersStore } from '../owners.ts';
import { sqlitePutRun } from './runs.ts';

/** Opens (creating if needed) `<dataDir>/paddock.db`; `:memory:` opens a private in-memory store. */
export function openSqliteStore(dataDir: string | ':memory:', lists: ListOptions = {}): Store {
  const db = openDb(dataDir);
  const sql = db.sql;
  const wakeups = localWakeups();
  return {
    ...settingsStore(sql),
    ...signInStore(sql),
    ...devicesStore(sql, lists),
    ...enrollTokensStore(sql),
    ...sqliteDeviceTransactions(db),
    ...runsStore(sql, lists),
    ...sqlitePutRun(db, lists),
    ...auditStore(sql),
    ...auditFeedStore(sql, SQLITE_SETTLED),
    ...accountsStore(sql),
    ...accountGroupsStore(sql),
    ...ownersStore(sql),
    ...sqliteOwnerTransactions(db),
    ...scimStore(sql, sqliteScimWrite(db)),
    ...accessTokensStore(sql),
    ...totpStore(sql),
    ...retentionStore(sql),
    ...dashboardStore(sql),
    ...webhooksStore(sql),
    ...collectionsStore(sql, wakeups),
    ...factsStore(sql),
    ...credentialsStore(sql),
    ...oidcStatesStore(sql),
    async close() {
      await wakeups.close();
      db.close();
    },
  };
}
