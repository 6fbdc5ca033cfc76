/**
 * The "Request a run" fields (docs/contract.md section 15) the device page and the device list
 * share: the level asked, the reason the device may show its user, and how long the ask stays
 * open. Each form adds who it asks (`device`, or `match=filter` and the list's filters).
 */
import { EXPIRES_IN } from '../domain/collections.ts';
import { PRIVACY_LEVELS, type PrivacyLevel, withinCeiling } from '../domain/privacy.ts';
import { html, type Html } from './html.ts';
import { option } from './list_parts.ts';

const LEVEL_WORDS: Record<PrivacyLevel, string> = {
  full: 'full: nothing removed',
  redacted: 'redacted: sensitive content removed by the device',
  minimal: 'minimal: the least the device can tell',
};

/** The choices of `expires_in`, in seconds, each within EXPIRES_IN; the default is a day. */
const EXPIRIES: ReadonlyArray<[seconds: number, words: string]> = [
  [600, '10 minutes'],
  [3_600, '1 hour'],
  [21_600, '6 hours'],
  [EXPIRES_IN.default, '1 day'],
  [259_200, '3 days'],
  [EXPIRES_IN.max, '1 week'],
];

/**
 * The fields, their ids starting with `idPrefix`. `levels` are the levels offered (a device's
 * ceiling and those more private), `level` the one selected.
 */
export function requestFields(opts: { idPrefix: string; levels?: readonly PrivacyLevel[]; level: PrivacyLevel }): Html {
  const id = (name: string) => `${opts.idPrefix}${name}`;
  const expiry = String(EXPIRES_IN.default);
  return html`<p>
      <label for="${id('privacy')}">Privacy level asked</label><br />
      <select id="${id('privacy')}" name="privacy">
        ${(opts.levels ?? PRIVACY_LEVELS).map((l) => option(l, LEVEL_WORDS[l], opts.level))}
      </select>
    </p>
    <p>
      <label for="${id('reason')}">Reason (1 to 200 characters; the device may show it to its user)</label><br />
      <input id="${id('reason')}" name="reason" required minlength="1" maxlength="200" size="60" />
    </p>
    <p>
      <label for="${id('expires')}">Open for</label><br />
      <select id="${id('expires')}" name="expires_in">
        ${EXPIRIES.map(([seconds, words]) => option(String(seconds), words, expiry))}
      </select>
    </p>`;
}

/** The levels a device may be asked for: its ceiling, and every level more private. */
export function levelsWithin(ceiling: PrivacyLevel): PrivacyLevel[] {
  return PRIVACY_LEVELS.filter((level) => withinCeiling(level, ceiling));
}
