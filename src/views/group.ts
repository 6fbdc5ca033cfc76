/**
 * One group (docs/contract.md section 19): its members (known accounts) and its devices, the first
 * page of the device list filtered by its owner, `group:<name>`.
 */
import { deviceStatus, type LabelledDevice } from '../domain/devices.ts';
import type { GroupSummary } from '../domain/groups.ts';
import type { Page } from '../domain/paging.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { devicePath } from './devices.ts';
import { devicesCount, groupDevicesPath, membersShown } from './groups.ts';

export function groupPage(
  chrome: Chrome,
  opts: { group: GroupSummary; devices: Page<LabelledDevice>; staleBefore: number },
): Html {
  const { group: g, devices } = opts;
  return layout(
    `Group ${g.name}`,
    chrome,
    html`<dl>
        <dt>Owner name</dt>
        <dd><code>group:${g.name}</code></dd>
        <dt>Members</dt>
        <dd>${g.memberCount}: ${membersShown(g.members, g.memberCount)}</dd>
        <dt>Devices</dt>
        <dd><a href="${groupDevicesPath(g.name)}">${devicesCount(g.devices)}</a></dd>
      </dl>
      <h2>Devices</h2>
      ${
        devices.items.length === 0
          ? html`<p>No devices.</p>`
          : html`<table>
              <caption>
                Devices of group ${g.name}, newest first
              </caption>
              <thead>
                <tr>
                  <th scope="col">Id</th>
                  <th scope="col">Name</th>
                  <th scope="col">Enrolled</th>
                  <th scope="col">Last seen</th>
                  <th scope="col">Status</th>
                </tr>
              </thead>
              <tbody>
                ${devices.items.map(
                  (d) =>
                    html`<tr>
                      <td><a href="${devicePath(d.id)}"><code>${d.id}</code></a></td>
                      <td>${d.name}</td>
                      <td>${time(d.enrolledAt, chrome.now)}</td>
                      <td>${time(d.lastSeenAt, chrome.now)}</td>
                      <td>${deviceStatus(d, opts.staleBefore)}</td>
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${
        devices.next === undefined
          ? ''
          : html`<p><a href="${groupDevicesPath(g.name)}">All devices of group ${g.name}</a></p>`
      }`,
  );
}
