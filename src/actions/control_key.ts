/**
 * `paddock rotate-control-key` (docs/contract.md sections 16 and 23): the next control key becomes
 * the current one and a new next key is made; with `compromised`, both keys are replaced by new
 * ones at once. Audited as `control_key.rotated` by `system`, with `compromised` saying which.
 * Devices that checked in since the last rotation hold the new current key's pin already, except
 * after a compromised rotation, which no device holds: each needs a new link. Every instance sharing
 * the store serves the new key within 60 s (server/serve.ts reloads it).
 */
import { EVENTS } from '../events/catalogue.ts';
import { type ControlKeyStore, replaceControlKeys, rotateControlKey } from '../tls/control_identity.ts';
import type { ActionDeps } from './deps.ts';

export async function rotateControlKeyAction(
  deps: Omit<ActionDeps, 'store'> & { store: ControlKeyStore },
  controlHost: string,
  opts: { compromised?: boolean } = {},
): Promise<{ retired: readonly string[]; pins: readonly string[] }> {
  const now = deps.clock.now();
  const compromised = opts.compromised === true;
  const { retired, identity } = compromised
    ? await replaceControlKeys(deps.store, controlHost, now)
    : await rotateControlKey(deps.store, controlHost, now).then((r) => ({ ...r, retired: [r.retired] }));
  await deps.logger.emit(EVENTS.controlKeyRotated, {
    account: 'system',
    retired_pin: retired[0] ?? '',
    pin: identity.pins[0] ?? identity.pin,
    next_pin: identity.pins[1] ?? '',
    compromised,
    ...(compromised && retired[1] !== undefined ? { retired_next_pin: retired[1] } : {}),
  });
  return { retired, pins: identity.pins };
}
