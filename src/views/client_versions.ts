/**
 * The dashboard's devices by the client version they reported (docs/contract.md sections 16 and 22),
 * most common first: each a bar (`<meter>`, against the most common) with its count, and a link to
 * the device list filtered by it.
 */
import { html, type Html } from './html.ts';

type Versions = ReadonlyArray<{ value: string; devices: number }>;

/** Each snapshot's list, drawn once (as the uploads chart: views/uploads_chart.ts). */
const drawn = new WeakMap<Versions, Html>();

export function clientVersionsSection(versions: Versions): Html {
  let section = drawn.get(versions);
  if (section === undefined) drawn.set(versions, (section = drawVersions(versions)));
  return section;
}

function drawVersions(versions: Versions): Html {
  if (versions.length === 0)
    return html`<h2>Client versions</h2>
      <p>No device has reported its client version.</p>`;
  const most = Math.max(1, ...versions.map((v) => v.devices));
  return html`<h2>Client versions</h2>
    <p>Devices by the client version they reported: the ten most common, revoked devices not counted.</p>
    <ul>
      ${versions.map((v) => {
        const name = v.value === '' ? '(empty)' : v.value;
        const devices = `${v.devices} device${v.devices === 1 ? '' : 's'}`;
        const href = `/devices?${new URLSearchParams({ fact: `client_version=${v.value}` }).toString()}`;
        return html`<li>
          <a href="${href}">${name}</a>
          <meter min="0" max="${most}" value="${v.devices}" aria-label="${name}: ${devices}">${devices}</meter>
          ${devices}
        </li>`;
      })}
    </ul>`;
}
