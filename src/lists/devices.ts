/** The device list's parameters (docs/contract.md sections 9 and 11): GET /devices and GET /api/v1/devices. */
import { DEVICE_SORTS, DEVICE_STATUSES, type DeviceFilter } from '../domain/devices.ts';
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
    sort: {
      kind: oneOf(DEVICE_SORTS),
      failure: 'badSort',
      about: 'order',
      label: 'Order',
      words: { newest: 'newest first', name: 'by name', last_seen: 'most recently seen first' },
      default: 'newest',
    },
    before: cursorParameter(cursor(SEQ_CURSOR)),
  },
  blank: 'absent',
  repeated: { failure: 'repeatedParameter', named: false },
  trim: false,
});

export type DeviceQuery = Values<typeof DEVICES.parameters>;

/** The store's device filter for a parsed query. */
export function deviceFilter(q: DeviceQuery, staleBefore: number): DeviceFilter {
  return {
    q: q.q,
    owner: q.owner,
    ownerDisabled: q.owner_disabled === 'yes' ? true : undefined,
    status: q.status,
    sort: q.sort,
    labels: selectors(q.label),
    facts: factSelectors(q.fact),
    staleBefore,
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
