/**
 * Facts (docs/contract.md section 16) as the pages show them: what a device reported about itself
 * and when, every fact escaped; and the dashboard's devices by client version.
 */
import type { Facts } from '../domain/facts.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';

/** A device's facts as a table of key and value, with when it reported them; or that it never did. */
export function factsSection(facts: Facts, reportedAt: number | null, now: number): Html {
  if (reportedAt === null)
    return html`<h2>Facts</h2>
      <p>This device has not reported any facts (what it runs on, its client's version).</p>`;
  const entries = Object.entries(facts);
  return html`<h2>Facts</h2>
    <p>Reported by the device ${time(reportedAt, now)}; the device sets these, operators set labels.</p>
    ${
      entries.length === 0
        ? html`<p>Its last report held no facts.</p>`
        : html`<table class="facts">
          <caption>
            Facts the device reported
          </caption>
          <thead>
            <tr>
              <th scope="col">Fact</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            ${entries.map(
              ([key, value]) =>
                html`<tr>
                  <th scope="row"><code>${key}</code></th>
                  <td>${value}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
    }`;
}

/** The devices by `client_version`, most common first, each linking to the list filtered by it. */
export function clientVersionsSection(versions: ReadonlyArray<{ value: string; devices: number }>): Html {
  return html`<h2>Client versions</h2>
    ${
      versions.length === 0
        ? html`<p>No device has reported its client version.</p>`
        : html`<table>
          <caption>
            Devices by the client version they reported (the ten most common; revoked devices are not counted)
          </caption>
          <thead>
            <tr>
              <th scope="col">Client version</th>
              <th scope="col">Devices</th>
            </tr>
          </thead>
          <tbody>
            ${versions.map(
              (v) =>
                html`<tr>
                  <th scope="row">
                    <a href="/devices?${new URLSearchParams({ fact: `client_version=${v.value}` }).toString()}"
                      >${v.value === '' ? '(empty)' : v.value}</a
                    >
                  </th>
                  <td>${String(v.devices)}</td>
                </tr>`,
            )}
          </tbody>
        </table>`
    }`;
}
