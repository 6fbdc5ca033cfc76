/** The device list's parameters (docs/contract.md sections 9 and 11): GET /devices and GET /api/v1/devices. */
import {
  DEVICE_SORTS,
  DEVICE_STATUSES,
  type DeviceFilter,
  SEEN_VALUES,
  type SeenValue,
  seenRange,
} from '../domain/devices.ts';
import { MAX_LABEL_FILTERS, parseLabelSelector, type LabelSelector } from '../domain/labels.ts';
import { VISIBLE_CHAR } from '../domain/names.ts';
import { type FactSelector, MAX_FACT_FILTERS, parseFactSelector } from '../domain/facts.ts';
import { SEQ_CURSOR } from '../domain/paging.ts';
import {
  cursor,
  cursorParameter,
  declareList,
  factSelector,
  labelSelector,
  oneOf,
  owner,
  text,
  type Values,
  yes,
} from './parameters.ts';

/**
 * A search needs three characters: both indexes are of trigrams, and a shorter pattern would
 * read every device.
 */
const SEARCH = new RegExp(`^${VISIBLE_CHAR}{3,128}$`, 'u');

export const DEVICES = declareList({
  parameters: {
    q: {
      kind: text(SEARCH, { min: 3, max: 128 }),
      failure: 'badSearch',
      about: 'id or name contains, any case',
      label: 'Id or name contains (3 characters or more)',
      shown: 'matching',
    },
    owner: {
      kind: owner(),
      failure: 'badOwner',
      about: 'an account subject, or group:<name> (docs/contract.md section 19)',
      label: 'Owner (an account subject, or group:<name>)',
      shown: 'owned by',
      adminOnly: true,
    },
    /** `yes`: only devices whose owner is a disabled account (docs/contract.md section 19). */
    owner_disabled: {
      kind: yes(),
      failure: 'badOwnerDisabledFilter',
      about: 'only devices whose owner is a disabled account (their owner left: hand them over)',
      label: 'Only devices of disabled accounts',
      shown: 'held by disabled accounts',
      adminOnly: true,
    },
    status: {
      kind: oneOf(DEVICE_STATUSES),
      failure: 'badStatus',
      about: 'device status',
      label: 'Status',
      shown: 'status',
    },
    label: {
      kind: labelSelector(),
      failure: 'badLabelFilter',
      about: 'a label every device shown carries: key=value, or key for any value; up to 5, all must hold',
      label: 'Label (key=value, or key for any value)',
      placeholder: 'site=berlin',
      shown: 'labelled',
      repeat: { max: MAX_LABEL_FILTERS, failure: 'tooManyLabelFilters' },
    },
    fact: {
      kind: factSelector(),
      failure: 'badFactFilter',
      about: 'a fact every device shown reported: key=value, exact; up to 5, all must hold',
      label: 'Fact (key=value)',
      placeholder: 'os=linux',
      shown: 'reporting',
      repeat: { max: MAX_FACT_FILTERS, failure: 'tooManyFactFilters' },
    },
    /** Silent devices (docs/contract.md section 22): seen within a window, or `not:` seen within it. */
    seen: {
      kind: oneOf(SEEN_VALUES, '[not:]5m|1h|24h|7d'),
      failure: 'badSeenFilter',
      about:
        'last seen within 5m, 1h, 24h or 7d; with not: (not:7d), not seen within it. A device never seen is never seen within any',
      label: 'Last seen',
      shown: 'seen',
      words: {
        '5m': 'within 5 minutes',
        '1h': 'within an hour',
        '24h': 'within 24 hours',
        '7d': 'within 7 days',
        'not:5m': 'not within 5 minutes',
        'not:1h': 'not within an hour',
        'not:24h': 'not within 24 hours',
        'not:7d': 'not within 7 days',
      },
    },
    sort: {
      kind: oneOf(DEVICE_SORTS),
      failure: 'badSort',
      about: 'order; last_seen_oldest: silent longest first, a device never seen first of all',
      label: 'Order',
      words: {
        newest: 'newest first',
        name: 'by name',
        last_seen: 'most recently seen first',
        last_seen_oldest: 'silent longest first',
      },
      default: 'newest',
    },
    before: cursorParameter(cursor(SEQ_CURSOR)),
  },
  blank: 'absent',
  repeated: { failure: 'repeatedParameter', named: false },
  trim: false,
});

export type DeviceQuery = Values<typeof DEVICES.parameters>;

/**
 * The store's device filter for a parsed query; `now` places the `seen=` window (a query with
 * `seen` and no `now` is a caller's mistake: the collection forms have no `seen`).
 */
export function deviceFilter(q: DeviceQuery, staleBefore: number, now?: number): DeviceFilter {
  if (q.seen !== undefined && now === undefined) throw new TypeError('deviceFilter: seen needs now');
  return {
    q: q.q,
    owner: q.owner,
    ownerDisabled: q.owner_disabled === 'yes' ? true : undefined,
    status: q.status,
    sort: q.sort,
    labels: selectors(q.label),
    facts: factSelectors(q.fact),
    staleBefore,
    seen: q.seen === undefined || now === undefined ? undefined : seenRange(q.seen as SeenValue, now),
  };
}

/** The fact filters as the store reads them (each value was checked by the parser). */
function factSelectors(given: readonly string[] | undefined): FactSelector[] | undefined {
  return given?.flatMap((text) => {
    const read = parseFactSelector(text);
    return read.ok ? [read.value] : [];
  });
}

/** The label filters as the store reads them (each value was checked by the parser). */
function selectors(given: readonly string[] | undefined): LabelSelector[] | undefined {
  return given?.flatMap((text) => {
    const read = parseLabelSelector(text);
    return read.ok ? [read.value] : [];
  });
}
