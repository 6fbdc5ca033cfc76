/**
 * GET /groups/{name}: admin only (docs/contract.md section 19). One group: its members (known
 * accounts) and its devices, the first page of the device list filtered by `owner=group:<name>`.
 * A group no account is in and that owns no device is not found.
 */
import type { Handler } from 'hono';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { groupPage } from '../views/group.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { GROUP_MEMBERS_MAX } from '../domain/groups.ts';
import { GROUP_PREFIX, isGroupName } from '../domain/owners.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { chrome, viewer } from './page_helpers.ts';

export function groupShow(ctx: Ctx): Handler<UiEnv> {
  return async function groupShowHandler(c) {
    const name = c.req.param('name') ?? '';
    const group = isGroupName(name) ? await ctx.store.group(name, GROUP_MEMBERS_MAX) : undefined;
    if (!group) return fail(c, 'groupNotFound');
    const staleBefore = ctx.clock.now() - ctx.config.staleAfterMs;
    const devices = await ctx.store.devicesVisibleTo(
      viewer(c),
      { limit: PAGE_SIZE },
      { owner: `${GROUP_PREFIX}${name}`, staleBefore },
    );
    return page(c, groupPage(chrome(ctx, c), { group, devices, staleBefore }));
  };
}
