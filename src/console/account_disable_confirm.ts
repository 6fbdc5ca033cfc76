/**
 * GET /accounts/{subject}/disable (docs/contract.md sections 14, 19 and 22): admin only, as the
 * action. The account page's form asks here, with its optional `hand_over_to` in the query; the page
 * says what disabling (or, for a disabled account, handing over) does, to how many sessions and
 * devices, with the form that posts to POST /accounts/{subject}/disable. It refuses what the action
 * would refuse, in the action's order and with its answers.
 */
import type { Context, Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { breakGlassSubject } from '../domain/accounts.ts';
import { parseOwner } from '../domain/owners.ts';
import { fail } from '../http/failures.ts';
import { page } from '../http/responses.ts';
import { confirmPage, counted } from '../views/confirm.ts';
import { html } from '../views/html.ts';
import { chrome } from './page_helpers.ts';

/** Counted up to here: a larger number is said as "more than". */
const COUNT_UP_TO = 1000;

export function accountDisableConfirm(ctx: Ctx): Handler<UiEnv> {
  return async function accountDisableConfirmHandler(c) {
    const subject = c.req.param('subject') ?? '';
    if (subject === breakGlassSubject(ctx.config.adminUser)) return fail(c, 'breakGlassNotDisabled');
    const given = handOverTo(c);
    if (given instanceof Response) return given;
    const to = given === undefined ? undefined : parseOwner(given);
    if (to && !to.ok) return fail(c, 'badOwner', `hand_over_to: ${to.message}`);
    const account = await ctx.store.accountState(subject);
    if (!account) return fail(c, 'accountNotFound');
    const now = ctx.clock.now();
    const [sessions, devices] = await Promise.all([
      ctx.store.sessionsOf(subject, now),
      ctx.store.devicesOwnedBy(subject, COUNT_UP_TO + 1),
    ]);
    const owned =
      devices.length > COUNT_UP_TO ? `more than ${COUNT_UP_TO} devices` : counted(devices.length, 'device', 'devices');
    const handOver = to
      ? html`Its ${owned} and their runs are handed over to <code>${to.owner}</code>.`
      : html`Its ${owned} stay its own.`;
    const disabled = account.disabledAt !== null;
    const path = `/accounts/${encodeURIComponent(subject)}`;
    return page(
      c,
      confirmPage(chrome(ctx, c), {
        title: disabled ? `Hand over the devices of ${account.display}?` : `Disable ${account.display}?`,
        consequence: disabled
          ? html`The account <code>${subject}</code> is already disabled. ${handOver}`
          : html`Disabling <code>${subject}</code> ends its ${counted(sessions.length, 'live session', 'live sessions')}
              at once and refuses its tokens and its sign-in, by either method, until it is enabled again.
              ${handOver}`,
        undo: disabled
          ? 'Devices handed over stay with their new owner until handed back.'
          : 'It can be enabled again from its page; ended sessions stay ended, and devices handed over stay with their new owner until handed back.',
        action: `${path}/disable`,
        fields: to ? [['hand_over_to', to.owner]] : [],
        button: disabled ? `Hand over ${owned}` : `Disable 1 account`,
        cancel: { href: path, text: 'Back to the account' },
      }),
    );
  };
}

/** The query's `hand_over_to`, trimmed, undefined when empty (keep them), or the 400 for a repeated one. */
function handOverTo(c: Context): string | undefined | Response {
  const values = new URL(c.req.url).searchParams.getAll('hand_over_to');
  if (values.length > 1) return fail(c, 'repeatedParameter');
  return (values[0] ?? '').trim() || undefined;
}
