/**
 * Facts (docs/contract.md section 16) as the pages show them: what a device reported about itself
 * and when, every fact escaped (the dashboard's devices by client version: client_versions.ts).
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
