/**
 * POST /collections/confirm (docs/contract.md sections 15 and 22): any signed-in account, as the
 * action. A form that asks more than one device for a run (the device list's, by its filters or its
 * selection) posts here first, with the fields POST /collections takes. The answer is the
 * confirmation page: the level, the reason and how many devices the ask reaches (each named when
 * named), and the form that posts the same fields to POST /collections. A form the action would
 * refuse is refused here alike, with its answer. POST /collections itself is unchanged.
 */
import type { Handler } from 'hono';
import { checkNewCollection, type NewCollectionInput } from '../actions/collections.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { EXPIRES_IN, MAX_TARGETS } from '../domain/collections.ts';
import type { LabelledDevice } from '../domain/devices.ts';
import type { PrivacyLevel } from '../domain/privacy.ts';
import { fail } from '../http/failures.ts';
import type { FormFields } from '../http/form.ts';
import { page } from '../http/responses.ts';
import { COLLECTION_FILTERS } from '../lists/collections.ts';
import { confirmPage, counted, namedDevice } from '../views/confirm.ts';
import { html } from '../views/html.ts';
import { scopeOf, seconds } from './collection_create.ts';
import { actor, chrome } from './page_helpers.ts';

export function collectionCreateConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function collectionCreateConfirmHandler(c) {
    const form = c.get('form');
    const scope = scopeOf(ctx, c, form);
    if (scope instanceof Response) return scope;
    const input: NewCollectionInput = {
      privacy: form.get('privacy') ?? '',
      reason: form.get('reason') ?? '',
      expiresIn: seconds(form.get('expires_in')),
      scope,
    };
    const failure = checkNewCollection(input);
    if (failure) return fail(c, failure);
    const who = actor(c);
    const now = ctx.clock.now();
    const expiresIn = input.expiresIn ?? EXPIRES_IN.default;
    const asked = {
      id: '',
      createdBy: who.subject,
      createdAt: now,
      privacy: input.privacy as PrivacyLevel,
      reason: input.reason,
      expiresAt: now + expiresIn * 1000,
    };
    const reach = await ctx.store.countCollectionReach(who, asked, scope);
    if (reach > MAX_TARGETS) return fail(c, 'tooManyTargets');
    const named: LabelledDevice[] = [];
    if ('devices' in scope)
      for (const id of new Set(scope.devices)) {
        const device = await ctx.store.deviceVisibleTo(who, id);
        if (device) named.push(device);
      }
    const many = counted(reach, 'device', 'devices');
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: `Request a run from ${many}?`,
        consequence: html`Each of the ${many} ${'devices' in scope ? 'named' : 'matching the filters'} is asked for a run
          at level <strong>${input.privacy}</strong>, for the reason “${input.reason}”, within
          ${hours(expiresIn)}. Revoked devices, those waiting for approval, those whose privacy ceiling is more
          private than the level and those with 5 open requests are skipped.`,
        items: named.length === 0 ? undefined : { caption: `The ${many} asked`, named: named.map(namedDevice) },
        undo: 'It can be cancelled from its page until the devices answer; runs already uploaded stay.',
        action: '/collections',
        fields: sentFields(form),
        button: `Request a run from ${many}`,
        cancel: { href: '/devices', text: 'Back to the devices' },
      }),
    );
  };
}

/** The fields the action reads, as sent, to post them again. */
function sentFields(form: FormFields): Array<readonly [string, string]> {
  const names = ['privacy', 'reason', 'expires_in', 'match', 'device', ...COLLECTION_FILTERS];
  return names.flatMap((name) => form.all(name).map((value) => [name, value] as const));
}

/** A lifetime in seconds, as the form offers it: minutes, hours or days. */
function hours(s: number): string {
  if (s % 86_400 === 0) return counted(s / 86_400, 'day', 'days');
  if (s % 3600 === 0) return counted(s / 3600, 'hour', 'hours');
  return counted(Math.round(s / 60), 'minute', 'minutes');
}
