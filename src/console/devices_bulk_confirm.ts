/**
 * POST /devices/bulk/confirm (docs/contract.md section 22): admin only, as the action. The device
 * list's bulk form posts here first, with the fields POST /devices/bulk takes. Labelling needs no
 * confirmation: it is done at once, by POST /devices/bulk's own handler. Every other action answers
 * with its confirmation page: what will happen to how many of the selected devices (each named), what
 * will be left alone and why, and the form that posts the same fields to POST /devices/bulk. A form
 * the action would refuse (a bad action or owner, nothing selected) is refused here alike. POST
 * /devices/bulk itself is unchanged: a post with only `csrf` and its fields still acts.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import type { Viewer } from '../domain/accounts.ts';
import type { LabelledDevice } from '../domain/devices.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { parseOwner } from '../domain/owners.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { returnPath } from '../http/return_path.ts';
import { confirmPage, counted, namedDevice, returnField } from '../views/confirm.ts';
import { html, type Html } from '../views/html.ts';
import { devicesBulk } from './devices_bulk.ts';
import { chrome, viewer } from './page_helpers.ts';

type Confirmed = 'approve' | 'reject' | 'revoke' | 'delete' | 'owner';

/** Per action: the verb, whether a device is acted on, why one is left alone, and whether it can be undone. */
const ACTIONS: Record<
  Confirmed,
  { verb: string; acts: (d: LabelledDevice, owner: string) => boolean; left: string; undo: true | string; what: string }
> = {
  approve: {
    verb: 'Approve',
    acts: (d) => d.pendingSince !== null,
    left: 'not waiting for approval: nothing is done to them',
    undo: 'An approved device does not wait again; to stop one later, revoke it.',
    what: 'may upload and take requests from then on',
  },
  reject: {
    verb: 'Reject',
    acts: (d) => d.pendingSince !== null,
    left: 'not waiting for approval: nothing is done to them',
    undo: true,
    what: 'are revoked: each must be enrolled again with a new link to reach Paddock',
  },
  revoke: {
    verb: 'Revoke',
    acts: (d) => d.revokedAt === null,
    left: 'already revoked: nothing changes',
    undo: true,
    what: 'have their credentials refused at once, on every instance, and their open requests cancelled; their runs stay',
  },
  delete: {
    verb: 'Delete',
    acts: (d) => d.revokedAt !== null,
    left: 'not revoked: they are not deleted (revoke them first)',
    undo: true,
    what: 'are deleted with every one of their runs',
  },
  owner: {
    verb: 'Hand over',
    acts: (d, owner) => d.owner !== owner,
    left: "already that owner's: nothing changes",
    undo: 'They can be handed back later, from their pages or this list.',
    what: 'are handed over, with their runs, to the new owner',
  },
};

export function devicesBulkConfirm(ctx: Ctx): Handler<UiEnv> {
  const act = devicesBulk(ctx);
  return async function devicesBulkConfirmHandler(c, next) {
    const form = c.get('form');
    const action = form.get('action');
    if (action === 'label' || action === 'unlabel') return act(c, next);
    if (action === undefined || !Object.hasOwn(ACTIONS, action)) return fail(c, 'badBulkAction');
    const confirmed = action as Confirmed;
    let owner = '';
    if (confirmed === 'owner') {
      const parsed = parseOwner((form.get('owner') ?? '').trim());
      if (!parsed.ok) return fail(c, 'badOwner', parsed.message);
      owner = parsed.owner;
    }
    const ids = [...new Set(form.all('device'))];
    if (ids.length === 0) return fail(c, 'noneSelected');
    const devices = await visibleDevices(ctx, viewer(c), ids);
    const { verb, acts, left, undo, what } = ACTIONS[confirmed];
    const acted = devices.filter((d) => acts(d, owner));
    const untouched = devices.filter((d) => !acts(d, owner));
    const unknown = ids.length - devices.length;
    const back = returnPath(form.get('return'), '/devices');
    const many = counted(acted.length, 'device', 'devices');
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: `${verb} ${many}?`,
        consequence:
          acted.length === 0
            ? 'None of the selected devices would change.'
            : html`${many} ${what}${confirmed === 'owner' ? html` <code>${owner}</code>` : ''}.`,
        items:
          acted.length === 0
            ? undefined
            : { caption: `The ${many} to ${verb.toLowerCase()}`, named: acted.map(namedDevice) },
        untouched: leftAlone(untouched, left, unknown),
        undo,
        action: '/devices/bulk',
        fields: [
          ['action', confirmed],
          ...(confirmed === 'owner' ? [['owner', owner] as const] : []),
          ...ids.map((id) => ['device', id] as const),
          ...returnField(back),
        ],
        button: `${verb} ${many}`,
        cancel: { href: back ?? '/devices', text: 'Back to the list' },
      }),
    );
  };
}

/** The selected devices the account may see, read one at a time in the order given, as the action acts. */
async function visibleDevices(ctx: Ctx, v: Viewer, ids: readonly string[]): Promise<LabelledDevice[]> {
  const devices: LabelledDevice[] = [];
  for (const id of ids) {
    const device = DEVICE_ID.test(id) ? await ctx.store.deviceVisibleTo(v, id) : undefined;
    if (device) devices.push(device);
  }
  return devices;
}

/** The selected devices the action leaves alone, named, and those not found (counted: they may not be yours). */
function leftAlone(devices: LabelledDevice[], why: string, unknown: number): Html | undefined {
  if (devices.length === 0 && unknown === 0) return undefined;
  return html`${
    devices.length === 0
      ? ''
      : html`${counted(devices.length, 'selected device is', 'selected devices are')} ${why}:
          ${devices.map((d, i) => html`${i > 0 ? ', ' : ''}${namedDevice(d)}`)}.`
  }
  ${unknown === 0 ? '' : `${counted(unknown, 'selected device was', 'selected devices were')} not found: nothing is done to them.`}`;
}
