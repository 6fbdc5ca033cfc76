/**
 * The confirmation page of an irreversible or far-reaching action (docs/contract.md section 22,
 * "Irreversible actions are confirmed"): what will happen, to how many and which, whether it can be
 * undone, then the form that posts to the action's own route, its button naming the verb and the
 * count (GOV.UK's content guidance: the consequence before the action), and the way back.
 */
import type { LabelledDevice } from '../domain/devices.ts';
import type { RunSummary } from '../domain/runs.ts';
import { devicePath } from './devices.ts';
import { size, time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import { runPath } from './runs.ts';

export interface Confirmation {
  /** The question, verb first: "Revoke device berlin-01?". */
  title: string;
  /** What will happen, one or two sentences. */
  consequence: Html | string;
  /** The items it acts on, named, when it acts on some. */
  items?: { caption: string; named: readonly Html[] } | undefined;
  /** What the action will leave alone among those chosen, and why. */
  untouched?: Html | string | undefined;
  /** True: says it cannot be undone; a string: how it can be. */
  undo: true | string;
  /** The action's own route. */
  action: string;
  /** The hidden fields besides `csrf`, in order; a name may repeat. */
  fields: ReadonlyArray<readonly [string, string]>;
  /** The button's text: the verb and the count, "Revoke 3 devices". */
  button: string;
  /** The way back without acting. */
  cancel: { href: string; text: string };
}

export function confirmPage(chrome: Chrome, c: Confirmation): Html {
  return layout(
    c.title,
    chrome,
    html`<p>${c.consequence}</p>
      ${c.items === undefined ? '' : namedList(c.items.caption, c.items.named)}
      ${c.untouched === undefined ? '' : html`<p>${c.untouched}</p>`}
      <p>${c.undo === true ? html`<strong>This cannot be undone.</strong>` : c.undo}</p>
      <form method="post" action="${c.action}">
        <input type="hidden" name="csrf" value="${chrome.csrf}" />
        ${c.fields.map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`)}
        <p><button type="submit">${c.button}</button> <a href="${c.cancel.href}">${c.cancel.text}</a></p>
      </form>`,
  );
}

/** The items named, a list folded open under its caption (a long selection stays one scroll away). */
function namedList(caption: string, named: readonly Html[]): Html {
  return html`<details open>
    <summary>${caption}</summary>
    <ul>
      ${named.map((item) => html`<li>${item}</li>`)}
    </ul>
  </details>`;
}

/** "3 devices", "1 device". */
export function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** A device by its name, linked, with its id beside (docs/contract.md section 22, "Lists that scale"). */
export function namedDevice(d: Pick<LabelledDevice, 'id' | 'name'>): Html {
  return html`<a href="${devicePath(d.id)}">${d.name}</a> (<code>${d.id}</code>)`;
}

/** A run by its id, linked, with its device by name (when still stored) and when it came. */
export function namedRun(r: RunSummary & { deviceName?: string | undefined }, now: number): Html {
  return html`run <a href="${runPath(r)}">${r.id}</a> of
    ${r.deviceName === undefined ? html`<code>${r.device}</code>` : namedDevice({ id: r.device, name: r.deviceName })},
    uploaded ${time(r.uploadedAt, now)} at level ${r.privacy}, ${size(r.size)}`;
}

/** The `return` field, when there is one to carry (http/return_path.ts). */
export function returnField(back: string | undefined): Array<readonly [string, string]> {
  return back === undefined ? [] : [['return', back]];
}
