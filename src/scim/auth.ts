/**
 * Who may call /scim/v2 (docs/contract.md section 20): a token of the `scim` scope, and no other
 * credential (a session cookie is not read; another token is 401 with `WWW-Authenticate: Bearer`),
 * of an account that is an administrator now (else 403). Each operation then parses only the query
 * parameters it declares: another, or one given twice, is an invalidSyntax.
 */
import type { Context, Handler } from 'hono';
import type { Actor } from '../domain/accounts.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { checkToken } from '../context/bearer_token.ts';
import { EVENTS } from '../events/catalogue.ts';
import { invalid } from '../domain/scim_failure.ts';
import { scimError } from './errors.ts';

export function scimOperation(
  ctx: Ctx,
  parameters: readonly string[],
  handle: (c: Context<UiEnv>, actor: Actor) => Promise<Response>,
): Handler<UiEnv> {
  return async function scimOperationHandler(c) {
    const checked = await checkToken(ctx, c, 'scim');
    if (!checked.ok) {
      if (checked.challenge !== undefined) c.header('WWW-Authenticate', checked.challenge);
      return scimError(c, { status: checked.status, detail: checked.detail });
    }
    const { record, client } = checked;
    if (record.account?.admin !== true) {
      await ctx.logger.emit(EVENTS.accessAdminRefused, { account: record.subject, path: c.req.path });
      return scimError(c, { status: 403, detail: "the scim token must be an administrator account's" });
    }
    const seen = new Set<string>();
    for (const name of new URL(c.req.url).searchParams.keys()) {
      if (!parameters.includes(name) || seen.has(name))
        return scimError(
          c,
          invalid('invalidSyntax', `${name} is not a parameter of this operation, or is given twice`),
        );
      seen.add(name);
    }
    return handle(c, { subject: record.subject, admin: true, client });
  };
}
