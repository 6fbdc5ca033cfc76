/**
 * The key webhook secrets are sealed with (crypto/sealed.ts): generated once and kept in the
 * store's settings, so every instance on the store can sign. It keeps the secrets out of the
 * webhook rows themselves: a copy of those rows, a query log or an export of the table reveals no
 * secret (docs/decisions.md, issue 26).
 */
import { randomBytes } from 'node:crypto';
import { SECRET_SETTINGS } from '../store/sealed_settings.ts';
import type { Store } from '../store/store.ts';

export const SEAL_KEY_SETTING = SECRET_SETTINGS.webhookSealKey;

export async function webhookSealKey(store: Pick<Store, 'setSettingIfAbsent'>): Promise<Buffer> {
  return Buffer.from(await store.setSettingIfAbsent(SEAL_KEY_SETTING, randomBytes(32).toString('base64')), 'base64');
}
