/** Session keys: configured, or generated once and kept in the store (sealed) so instances share them. */
import { randomBytes } from 'node:crypto';
import { SECRET_SETTINGS } from '../store/sealed_settings.ts';
import type { Store } from '../store/store.ts';

export async function resolveSessionKeys(configured: Buffer[] | undefined, store: Store): Promise<Buffer[]> {
  if (configured && configured.length > 0) return configured;
  const stored = await store.setSettingIfAbsent(SECRET_SETTINGS.sessionKey, randomBytes(32).toString('base64'));
  return [Buffer.from(stored, 'base64')];
}
