/** The device list, with revoke buttons and a link to enroll a device for administrators. */
import type { Device, Page } from '../store/store.ts';
import { time } from './format.ts';
import { html } from './html.ts';
import { actionButton, type Chrome, layout } from './layout.ts';

export function devicesPage(
  chrome: Chrome,
  opts: { page: Page<Device & { lastUploadAt: number | null }>; first: boolean },
) {
  const admin = chrome.session.admin;
  const { items, next } = opts.page;
  return layout(
    'Devices',
    chrome,
    html`<p>
        ${items.length === 0 ? 'No devices' : `Showing ${items.length} device${items.length === 1 ? '' : 's'}`}${admin ? '' : ' that you own'},
        newest first.
      </p>
      ${
        items.length === 0
          ? ''
          : html`<table>
              <caption>
                Devices
              </caption>
              <thead>
                <tr>
                  <th scope="col">Device</th>
                  <th scope="col">Name</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Enrolled</th>
                  <th scope="col">Last upload</th>
                  <th scope="col">Status</th>
                  ${admin ? html`<th scope="col">Action</th>` : ''}
                </tr>
              </thead>
              <tbody>
                ${items.map(
                  (d) =>
                    html`<tr>
                      <td><code>${d.id}</code></td>
                      <td>${d.name}</td>
                      <td>${d.owner}</td>
                      <td>${time(d.enrolledAt, chrome.now)}</td>
                      <td>${time(d.lastUploadAt, chrome.now)}</td>
                      <td>${d.revokedAt === null ? 'active' : html`revoked ${time(d.revokedAt, chrome.now)}`}</td>
                      ${
                        admin
                          ? html`<td>
                              ${d.revokedAt === null ? actionButton(`/devices/${encodeURIComponent(d.id)}/revoke`, chrome.csrf, `Revoke ${d.id}`) : ''}
                            </td>`
                          : ''
                      }
                    </tr> `,
                )}
              </tbody>
            </table>`
      }
      ${next ? html`<p><a href="/devices?before=${next}">Older devices</a></p>` : ''}
      ${opts.first ? '' : html`<p><a href="/devices">Newest devices</a></p>`}
      ${admin ? html`<p><a href="/enroll-tokens">Enroll a device</a></p>` : ''}`,
  );
}
