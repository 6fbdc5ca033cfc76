/** The run list's parameters (docs/contract.md sections 9, 11 and 21): GET /runs and GET /api/v1/runs. */
import { SEQ_CURSOR } from '../domain/paging.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import type { RunFilter } from '../domain/runs.ts';
import { parseTextQuery, type TextQuery } from '../domain/words.ts';
import {
  cursor,
  cursorParameter,
  day,
  dayRange,
  declareList,
  deviceId,
  oneOf,
  searchText,
  sinceNotAfterUntil,
  type Values,
  yes,
} from './parameters.ts';

export const RUNS = declareList({
  parameters: {
    /** Words and "quoted phrases" every run found holds (docs/contract.md section 21). */
    text: {
      kind: searchText(),
      failure: 'badTextSearch',
      about: 'words every run found holds (letters and digits, any case); a "quoted phrase" must appear as such',
      label: 'Text',
      hint: 'Runs holding every word, in any case; put a phrase in "quotes" to find its words together, in that order.',
      shown: 'holding',
    },
    device: {
      kind: deviceId(),
      failure: 'badDeviceFilter',
      about: 'a device id',
      label: 'Device id',
      shown: 'of device',
    },
    privacy: {
      kind: oneOf(PRIVACY_LEVELS),
      failure: 'badPrivacyFilter',
      about: 'privacy level',
      label: 'Privacy level',
      shown: 'at privacy level',
    },
    since: {
      kind: day(),
      failure: 'badDate',
      about: 'uploaded on or after this day (UTC)',
      label: 'Uploaded from (day, UTC)',
      shown: 'uploaded from',
    },
    until: {
      kind: day(),
      failure: 'badDate',
      about: 'uploaded on or before this day (UTC)',
      label: 'Uploaded until (day, UTC, included)',
      shown: 'uploaded until',
    },
    /** `yes`: only runs the level check flagged (docs/contract.md section 10). */
    flagged: {
      kind: yes(),
      failure: 'badFlaggedFilter',
      about: 'only runs the level check flagged',
      label: 'Only runs the level check flagged',
      shown: 'flagged by the level check',
    },
    before: cursorParameter(cursor(SEQ_CURSOR)),
  },
  blank: 'absent',
  repeated: { failure: 'repeatedParameter', named: false },
  trim: false,
  across: sinceNotAfterUntil,
});

export type RunQuery = Values<typeof RUNS.parameters>;

/** The store's run filter for a parsed query: the console's list and the API's read the same. */
export function runFilter(q: RunQuery): RunFilter {
  const { since, until } = dayRange(q);
  return {
    device: q.device,
    privacy: q.privacy,
    since,
    until,
    flagged: q.flagged === 'yes' ? true : undefined,
    text: textQuery(q),
  };
}

/** The parsed search of a query whose `text` the parser accepted, or undefined without one. */
export function textQuery(q: RunQuery): TextQuery | undefined {
  if (q.text === undefined) return undefined;
  const read = parseTextQuery(q.text);
  return read.ok ? read.query : undefined;
}
