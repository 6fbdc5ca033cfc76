/**
 * What a start does with the seal key (docs/contract.md section 23), before anything reads a secret:
 * the store's check value says whether its secrets are sealed, and under which key. A store sealed
 * under a key this start does not have is refused (exit 2, one line naming the file), and nothing
 * is written: no new key file, no new secret in place of one that does not open.
 *
 * A store made before sealing (plain secrets, no check value) is sealed in place, once: the check
 * value goes in first (the first instance's key wins, and an instance with another key stops there,
 * before it seals anything), then each plain secret is replaced by its sealed value by compare and
 * set, so two instances starting at once on PostgreSQL seal each secret once and agree.
 */
import { ConfigError } from '../config/parse.ts';
import { makeSealKey, readSealKey, SealKeyError } from '../crypto/seal_key.ts';
import { rmSync } from 'node:fs';
import {
  checkOpens,
  isSealed,
  openSetting,
  SEAL_CHECK_SETTING,
  sealCheck,
  sealedSettings,
  sealSetting,
  SECRET_SETTINGS,
  type SettingsKey,
  settingsKey,
} from './sealed_settings.ts';
import type { SettingsStore } from './store.ts';

export const SEAL_KEY_VARIABLE = 'PADDOCK_SEAL_KEY_FILE';

type Settings = Pick<SettingsStore, 'getSetting' | 'setSettingIfAbsent' | 'setSetting' | 'replaceSetting'>;

/**
 * The seal key in `keyFile` judged against the store's check value (undefined: the store's secrets
 * are not sealed yet): `usable` with the key, `absent` (a file the next start makes), or `refused`
 * with the one line that says why. The start and `paddock check` read it the same way.
 */
export type SealKeyJudgement =
  | { state: 'usable'; key: SettingsKey; opensCheck: boolean }
  | { state: 'absent' }
  | { state: 'refused'; reason: string };

export function judgeSealKey(keyFile: string, check: string | undefined): SealKeyJudgement {
  let root: Buffer;
  try {
    root = readSealKey(keyFile);
  } catch (err) {
    if (!(err instanceof SealKeyError)) throw err;
    if (err.fault !== 'missing') return { state: 'refused', reason: err.message };
    if (check === undefined) return { state: 'absent' };
    return {
      state: 'refused',
      reason: `${keyFile} does not exist, and the store's secrets are sealed: give this instance the seal key file they were sealed with (it is in no database backup)`,
    };
  }
  const key = settingsKey(root);
  if (check !== undefined && !checkOpens(key, check)) return { state: 'refused', reason: wrongKey(keyFile) };
  return { state: 'usable', key, opensCheck: check !== undefined };
}

const wrongKey = (keyFile: string) =>
  `${keyFile} is not the seal key the store's secrets are sealed with: give this instance that file (every instance the same one)`;

/** The store with its secret settings sealed under the key in `keyFile`, or a ConfigError naming the file. */
export async function sealStore<S extends Settings>(store: S, keyFile: string): Promise<S> {
  const check = await store.getSetting(SEAL_CHECK_SETTING);
  const judged = judgeSealKey(keyFile, check);
  if (judged.state === 'refused') throw refusal(judged.reason);
  const made = judged.state === 'absent' ? makeKey(keyFile) : undefined;
  const key = judged.state === 'usable' ? judged.key : settingsKey((made as { key: Buffer }).key);
  const stored = check ?? (await store.setSettingIfAbsent(SEAL_CHECK_SETTING, sealCheck(key)));
  if (!checkOpens(key, stored)) {
    // Another instance sealed the store first, with another file: this one's new file is not the store's.
    if (made?.made === true) rmSync(keyFile, { force: true });
    throw refusal(wrongKey(keyFile));
  }
  for (const name of Object.values(SECRET_SETTINGS)) {
    const value = await store.getSetting(name);
    if (value === undefined) continue;
    if (!isSealed(value)) {
      // False when another instance sealed it first, under the same key (the check value says so).
      await store.replaceSetting(name, value, sealSetting(key, name, value));
      continue;
    }
    try {
      openSetting(key, name, value);
    } catch {
      throw refusal(
        `${keyFile} opens the store's check value but not its ${name}: was the row copied from another store?`,
      );
    }
  }
  return sealedSettings(store, key);
}

/** A new key file for a store not sealed yet (or the one another process made a moment before). */
function makeKey(keyFile: string): { key: Buffer; made: boolean } {
  try {
    return makeSealKey(keyFile);
  } catch (err) {
    if (err instanceof SealKeyError) throw refusal(err.message);
    throw refusal(`cannot make ${keyFile}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

const refusal = (message: string) => new ConfigError(SEAL_KEY_VARIABLE, message);
