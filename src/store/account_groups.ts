/**
 * An account's groups (docs/contract.md section 19): replaced whole at each OIDC sign-in or by
 * SCIM, read on every request by the guard and the API's authentication (the primary key), so a
 * change reaches the account's sessions and tokens at their next request on every instance.
 */
import type { Param, Sql } from './sql.ts';
import type { AccountGroupsStore } from './store.ts';
import { isGroupName, MAX_ACCOUNT_GROUPS } from '../domain/owners.ts';

export const accountGroupsSql = {
  of: 'SELECT group_name FROM account_groups WHERE subject = ? ORDER BY group_name',
  clear: 'DELETE FROM account_groups WHERE subject = ?',
} as const;

/** One INSERT of `n` rows (subject, group_name). */
function insertSql(n: number): string {
  return `INSERT INTO account_groups (subject, group_name) VALUES ${Array.from({ length: n }, () => '(?, ?)').join(', ')}`;
}

export function accountGroupsStore(db: Sql): AccountGroupsStore {
  return {
    async setAccountGroups(subject, groups) {
      const names = [...new Set(groups)];
      const bad = names.find((g) => !isGroupName(g));
      if (bad !== undefined) throw new TypeError(`setAccountGroups: not a group name: ${JSON.stringify(bad)}`);
      if (names.length > MAX_ACCOUNT_GROUPS)
        throw new TypeError(`setAccountGroups: ${names.length} groups, at most ${MAX_ACCOUNT_GROUPS}`);
      const statements: Array<readonly [string, Param[]]> = [[accountGroupsSql.clear, [subject]]];
      if (names.length > 0) statements.push([insertSql(names.length), names.flatMap((g) => [subject, g])]);
      await db.atomically(statements);
    },
    async accountGroups(subject) {
      return (await db.all(accountGroupsSql.of, subject)).map((r) => r.group_name as string);
    },
  };
}
