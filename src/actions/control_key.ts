/**
 * `paddock rotate-control-key` (docs/contract.md section 16): the next control key becomes the
 * current one and a new next key is made, audited as `control_key.rotated` by `system`. Devices that
 * checked in since the last rotation hold the new current key's pin already; every instance sharing
 * the store serves it within 60 s (server/serve.ts reloads it).
 */
import { EVENTS } from '../events/catalogue.ts';
import { type ControlKeyStore, rotateControlKey } from '../tls/control_identity.ts';
import type { ActionDeps } from './deps.ts';

export async function rotateControlKeyAction(
  deps: Omit<ActionDeps, 'store'> & { store: ControlKeyStore },
  controlHost: string,
): Promise<{ retired: string; pins: readonly string[] }> {
  const { retired, identity } = await rotateControlKey(deps.store, controlHost, deps.clock.now());
  await deps.logger.emit(EVENTS.controlKeyRotated, {
    account: 'system',
    retired_pin: retired,
    pin: identity.pins[0] ?? identity.pin,
    next_pin: identity.pins[1] ?? '',
  });
  return { retired, pins: identity.pins };
}
