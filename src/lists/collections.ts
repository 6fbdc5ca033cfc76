/**
 * The collections list's parameters and a collection's targets' (docs/contract.md section 15):
 * GET /collections and GET /collections/{id} in the console, their API twins under /api/v1/.
 */
import { COLLECTION_STATES, TARGET_STATES } from '../domain/collections.ts';
import { SEQ_CURSOR } from '../domain/paging.ts';
import type { DEVICES } from './devices.ts';
import { cursor, cursorParameter, declareList, oneOf, type Values } from './parameters.ts';

export const COLLECTIONS = declareList({
  parameters: {
    state: {
      kind: oneOf(COLLECTION_STATES),
      failure: 'badCollectionState',
      about: 'open (some target is pending or delivered) or closed',
      label: 'State',
      words: { open: 'open: some devices have yet to answer', closed: 'closed: none has yet to answer' },
      shown: 'state',
    },
    before: cursorParameter(cursor(SEQ_CURSOR)),
  },
  blank: 'absent',
  repeated: { failure: 'repeatedParameter', named: false },
  trim: false,
});

export type CollectionsQuery = Values<typeof COLLECTIONS.parameters>;

/** A collection's targets, on its page: in one state, or all of them. */
export const COLLECTION_TARGETS = declareList({
  parameters: {
    state: {
      kind: oneOf(TARGET_STATES),
      failure: 'badTargetState',
      about: 'target state',
      label: 'Target state',
      shown: 'in state',
    },
    before: cursorParameter(cursor(SEQ_CURSOR)),
  },
  blank: 'absent',
  repeated: { failure: 'repeatedParameter', named: false },
  trim: false,
});

export type TargetsQuery = Values<typeof COLLECTION_TARGETS.parameters>;

/**
 * The device list's filters (lists/devices.ts) a collection can be asked with, by `match=filter`:
 * its order and cursor choose a page, not devices.
 */
export const COLLECTION_FILTERS = ['q', 'owner', 'status', 'label', 'fact'] as const satisfies ReadonlyArray<
  keyof typeof DEVICES.parameters
>;
