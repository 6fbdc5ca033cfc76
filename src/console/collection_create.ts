/**
 * POST /collections (docs/contract.md section 15): asks devices for a run, with the form's
 * `privacy`, `reason` and `expires_in` (seconds; a day when blank), either of the devices its
 * `device` fields name or, with `match=filter`, of every device the device list's filters match
 * (read by that list's own parser, so the ask reaches what the list showed). A non-admin reaches
 * only its own devices: the store scopes both. 303 to the new collection; a bad field is its
 * plain-text 400 and creates nothing.
 */
import type { Context, Handler } from 'hono';
import { createCollection } from '../actions/collections.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import type { CollectionScope } from '../domain/collections.ts';
import { fail } from '../http/failures.ts';
import type { FormFields } from '../http/form.ts';
import { seeOther } from '../http/responses.ts';
import { COLLECTION_FILTERS } from '../lists/collections.ts';
import { DEVICES, deviceFilter } from '../lists/devices.ts';
import { consoleFailure, parseConsole } from '../lists/parameters.ts';
import { collectionPath } from '../views/collections.ts';
import { actor } from './page_helpers.ts';

export function collectionCreate(ctx: Ctx): Handler<UiEnv> {
  return async function collectionCreateHandler(c) {
    const form = c.get('form');
    const scope = scopeOf(ctx, c, form);
    if (scope instanceof Response) return scope;
    const created = await createCollection(ctx, actor(c), {
      privacy: form.get('privacy') ?? '',
      reason: form.get('reason') ?? '',
      expiresIn: seconds(form.get('expires_in')),
      scope,
    });
    if (!created.ok) return fail(c, created.failure);
    return seeOther(c, collectionPath(created.collection.id));
  };
}

/** `expires_in` as whole seconds, undefined when blank (the default), NaN when not digits (refused). */
export function seconds(text: string | undefined): number | undefined {
  if (text === undefined || text === '') return undefined;
  return /^[0-9]{1,7}$/.test(text) ? Number(text) : Number.NaN;
}

/**
 * The named devices (checked by the action), or the filter; the answer when the form is at fault.
 * The confirmation step reads the form with it too (collection_create_confirm.ts).
 */
export function scopeOf(ctx: Ctx, c: Context, form: FormFields): CollectionScope | Response {
  const match = form.get('match');
  const devices = form.all('device');
  if (match === undefined) return { devices };
  if (match !== 'filter') return fail(c, 'badForm', 'match must be filter, or absent with device fields');
  if (devices.length > 0) return fail(c, 'badCollectionDevices', 'give device fields or match=filter, not both');
  const params = new URLSearchParams();
  for (const name of COLLECTION_FILTERS) for (const value of form.all(name)) params.append(name, value);
  const parsed = parseConsole(DEVICES, params);
  if (!parsed.ok) {
    const { failure, detail } = consoleFailure(DEVICES, parsed.fault);
    return fail(c, failure, detail);
  }
  return { filter: deviceFilter(parsed.values, ctx.clock.now() - ctx.config.staleAfterMs) };
}
