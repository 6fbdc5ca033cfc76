/**
 * The groups page (docs/contract.md section 19): each group known, from accounts' groups and from
 * device owners, with its first members and how many, and its devices, linked to the group's page
 * and to the device list of its owner.
 */
import type { GroupMember, GroupSummary } from '../domain/groups.ts';
import type { Page } from '../domain/paging.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { GROUPS } from '../lists/pages.ts';
import { filterAlert, type FilterError, listRange, type ListTotal, olderQuery } from './list_parts.ts';

export function groupPath(name: string): string {
  return `/groups/${encodeURIComponent(name)}`;
}

/** The device list of the group's devices. */
export function groupDevicesPath(name: string): string {
  return `/devices?owner=${encodeURIComponent(`group:${name}`)}`;
}

const GROUP_ROWS = { one: 'group', many: 'groups' };

/** "1 device", "3 devices". */
export function devicesCount(n: number): string {
  return `${n} device${n === 1 ? '' : 's'}`;
}

/** Members, each linked to its account, with "and N more" when not all are shown. */
export function membersShown(members: readonly GroupMember[], total: number): Html | string {
  if (total === 0) return 'no known account';
  const more = total - members.length;
  return html`${members.map(
    (m, i) =>
      html`${i > 0 ? ', ' : ''}<a href="/accounts/${encodeURIComponent(m.subject)}">${m.display}</a>${
        m.disabledAt === null ? '' : ' (disabled)'
      }`,
  )}${more > 0 ? ` and ${more} more` : ''}`;
}

/** The page; with `error`, the page cursor was refused (docs/contract.md section 22): the alert, and no groups. */
export function groupsPage(
  chrome: Chrome,
  opts: {
    page: Page<GroupSummary>;
    first: boolean;
    /** How many groups the list holds, and the position of the page's first row (docs/contract.md section 22). */
    total?: ListTotal | undefined;
    from?: number | undefined;
    error?: FilterError | undefined;
  },
): Html {
  const { items, next } = opts.page;
  const { range, counted } = listRange(GROUP_ROWS, items.length, opts.from, opts.total, chrome.now);
  const older = opts.from === undefined ? undefined : opts.from + items.length;
  return layout(
    'Groups',
    chrome,
    html`${opts.error === undefined ? '' : filterAlert(GROUPS, opts.error, { admin: true })}
      <p>
        ${opts.error !== undefined ? 'Groups are' : items.length === 0 ? 'No groups' : range}
        known from accounts' groups and from device owners, by name.${items.length === 0 ? '' : counted} A device owned by
        <code>group:&lt;name&gt;</code> is reached by every member of the group.
      </p>
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Groups
              </caption>
              <thead>
                <tr>
                  <th scope="col">Group</th>
                  <th scope="col">Members</th>
                  <th scope="col">Devices</th>
                </tr>
              </thead>
              <tbody>
                ${items.map(
                  (g) =>
                    html`<tr>
                      <td><a href="${groupPath(g.name)}">${g.name}</a></td>
                      <td>${g.memberCount}: ${membersShown(g.members, g.memberCount)}</td>
                      <td><a href="${groupDevicesPath(g.name)}">${devicesCount(g.devices)}</a></td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/groups${olderQuery(GROUPS, {}, next, older)}">More groups</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/groups">First groups</a></p>`}`,
  );
}
