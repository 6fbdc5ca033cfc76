/**
 * The collections page (docs/contract.md section 15): the runs asked of devices, newest first, an
 * administrator's all of them and anyone else's their own, with how far each has come (counts by
 * target state), filtered open or closed and keyset-paged.
 */
import { type Collection, TARGET_STATES, type TargetCounts } from '../domain/collections.ts';
import type { Page } from '../domain/paging.ts';
import { COLLECTIONS, type CollectionsQuery } from '../lists/collections.ts';
import { listQueryString } from '../lists/parameters.ts';
import { time } from './format.ts';
import { html, type Html } from './html.ts';
import { type Chrome, layout } from './layout.ts';
import {
  filterAlert,
  type FilterError,
  filterFields,
  filterSummary,
  listRange,
  type ListTotal,
  olderQuery,
  refusedRows,
} from './list_parts.ts';

export function collectionPath(id: string): `/collections/${string}` {
  return `/collections/${encodeURIComponent(id)}`;
}

/** `2 pending, 1 fulfilled`: the states that hold a target, in the states' order. */
export function countsText(counts: TargetCounts): string {
  const held = TARGET_STATES.filter((s) => counts[s] > 0).map((s) => `${counts[s]} ${s}`);
  return held.length === 0 ? 'no device' : held.join(', ');
}

/** Open, or closed (and whether an operator cancelled it). */
export function collectionState(c: Collection, now: number): Html | string {
  if (c.closedAt === null) return 'open';
  return html`closed ${time(c.closedAt, now)}${c.cancelledAt === null ? '' : ', cancelled'}`;
}

/** A page of collections, with how many the list holds and the position of its first row (docs/contract.md section 22). */
export interface CollectionsView {
  page: Page<Collection>;
  query: CollectionsQuery;
  total?: ListTotal | undefined;
  from?: number | undefined;
  error?: FilterError;
}

/**
 * The page, with `error` (docs/contract.md section 22) the form as sent with the message beside
 * the field at fault, and no rows: none were read for a query that was refused.
 */
export function collectionsPage(chrome: Chrome, opts: CollectionsView) {
  const q = opts.query;
  const admin = chrome.session.admin;
  const { error } = opts;
  return layout(
    'Collections',
    chrome,
    html`${error === undefined ? '' : filterAlert(COLLECTIONS, error, { admin })}
      <p>
        A collection asks devices for a run: from a device's page, or from the device list for every device its filters
        match. Each device answers with a run or declines.
      </p>
      <form method="get" action="/collections">
        <fieldset>
          <legend>Find collections</legend>
          ${filterFields(COLLECTIONS, q, { admin, error })}
          <p><button type="submit">Show collections</button> <a href="/collections">Clear filters</a></p>
        </fieldset>
      </form>
      ${
        error === undefined
          ? rows(chrome, opts, admin)
          : refusedRows(COLLECTIONS, q, error, {
              path: '/collections',
              first: 'Newest collections',
              rows: 'collections',
            })
      }`,
  );
}

/** The collections read, with the sentence that counts them and the paging links. */
function rows(chrome: Chrome, opts: CollectionsView, admin: boolean): Html {
  const { items, next } = opts.page;
  const q = opts.query;
  const { range, counted } = listRange(COLLECTION_ROWS, items.length, opts.from, opts.total, chrome.now);
  const older = opts.from === undefined ? undefined : opts.from + items.length;
  return html`<p>
        ${items.length === 0 ? 'No collections' : range}${admin ? '' : ' that you asked for'}${filterSummary(COLLECTIONS, q)},
        newest first.${items.length === 0 ? '' : counted}
      </p>
      ${items.length === 0 ? '' : table(chrome, items)}
      ${next ? html`<p><a href="/collections${olderQuery(COLLECTIONS, q, next, older)}">Older collections</a></p>` : ''}
      ${q.before === undefined ? '' : html`<p><a href="/collections${listQueryString(COLLECTIONS, q)}">Newest collections</a></p>`}`;
}

const COLLECTION_ROWS = { one: 'collection', many: 'collections' };

function table(chrome: Chrome, items: Collection[]): Html {
  return html`<table>
    <caption>
      Collections
    </caption>
    <thead>
      <tr>
        <th scope="col">Collection</th>
        <th scope="col">Created</th>
        <th scope="col">By</th>
        <th scope="col">Level</th>
        <th scope="col">Reason</th>
        <th scope="col">Expires</th>
        <th scope="col">Targets</th>
        <th scope="col">State</th>
      </tr>
    </thead>
    <tbody>
      ${items.map(
        (c) =>
          html`<tr>
            <td><a href="${collectionPath(c.id)}"><code>${c.id}</code></a></td>
            <td>${time(c.createdAt, chrome.now)}</td>
            <td>${c.createdBy}</td>
            <td>${c.privacy}</td>
            <td>${c.reason}</td>
            <td>${c.closedAt === null ? time(c.expiresAt, chrome.now) : html`closed ${time(c.closedAt, chrome.now)}`}</td>
            <td>${countsText(c.counts)}</td>
            <td>${collectionState(c, chrome.now)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
