/**
 * The Store on PostgreSQL, for several instances that share one database: the domain files'
 * statements on the pool (db.ts), with enrollment and uploads in devices.ts and runs.ts. Single
 * use, idempotent uploads and revokes hold across instances because each is one conditional
 * statement or one transaction.
 */
import { accessTokensStore } from '../access_tokens.ts';
import { totpStore } from '../totp.ts';
import { accountsStore } from '../accounts.ts';
import { accountGroupsStore } from '../account_groups.ts';
import type { ListOptions } from '../owners_reach.ts';
import { auditStore } from '../audit.ts';
import { auditFeedStore, POSTGRES_SETTLED } from '../audit_feed.ts';
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
import { pgScimWrite } from './scim.ts';
import { scimStore } from '../scim.ts';
import { pgWakeups } from './listen.ts';
import { openPgDb } from './db.ts';
import { pgDeviceTransactions } from './devices.ts';
import { pgOwnerTransactions } from './owners.ts';
import { ownersStore } from '../owners.ts';
import type { PgOptions } from './pool.ts';
import { pgPutRun } from './runs.ts';

/**
 * An account's lists are always merged by owner here (owners_reach.ts): the generic plan PostgreSQL
 * settles on for `owner IN (…) ORDER BY seq DESC` prepared on a pooled connection walks the seq
 * index and filters, reading the fleet for an account with few devices (test/store/group_plans.test.ts).
 */
const PG_OWNERS_SCAN_ROWS = 0;

export async function openPostgresStore(url: string, opts: PgOptions & ListOptions = {}): Promise<Store> {
  const db = await openPgDb(url, opts);
  const wakeups = pgWakeups(url, opts, db.sql);
  return {
    ...settingsStore(db.sql),
    ...signInStore(db.sql),
    ...devicesStore(db.sql, { ownersScanRows: PG_OWNERS_SCAN_ROWS, ...opts }),
    ...enrollTokensStore(db.sql),
    ...pgDeviceTransactions(db),
    ...runsStore(db.sql, { ownersScanRows: PG_OWNERS_SCAN_ROWS, ...opts }),
    ...pgPutRun(db, opts),
    ...auditStore(db.sql),
    ...auditFeedStore(db.sql, POSTGRES_SETTLED),
    ...accountsStore(db.sql),
    ...accountGroupsStore(db.sql),
    ...ownersStore(db.sql),
    ...pgOwnerTransactions(db),
    ...scimStore(db.sql, pgScimWrite(db)),
    ...accessTokensStore(db.sql),
    ...totpStore(db.sql),
    ...retentionStore(db.sql),
    ...dashboardStore(db.sql),
    ...webhooksStore(db.sql),
    ...collectionsStore(db.sql, wakeups),
    ...factsStore(db.sql),
    ...credentialsStore(db.sql),
    ...oidcStatesStore(db.sql),
    close: async () => {
      await wakeups.close();
      await db.end();
    },
  };
}
