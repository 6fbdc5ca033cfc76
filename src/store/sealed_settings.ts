/**
 * The store's secret settings, sealed (docs/contract.md section 23): the control keys, the session
 * key and the root keys of the TOTP and webhook secrets are kept as `sealed:<AES-256-GCM>` under a
 * key derived from the seal key file, bound to the setting's name. sealedSettings wraps a store's
 * settings methods so that their callers read and write plain values as before.
 */
import { deriveKey, open, seal } from '../crypto/seal.ts';
import { StoreError } from './errors.ts';
import type { SettingsStore } from './store.ts';

/** Every setting that holds a secret: the one list a new secret setting joins. */
export const SECRET_SETTINGS = {
  controlTls: 'control_tls',
  sessionKey: 'session_key',
  totpKey: 'totp_key',
  webhookSealKey: 'webhook_seal_key',
} as const;

const secret = new Set<string>(Object.values(SECRET_SETTINGS));
export const isSecretSetting = (name: string): boolean => secret.has(name);

/** A known plaintext sealed under the key, so that a start can tell a wrong key from a right one. */
export const SEAL_CHECK_SETTING = 'seal_check';
const CHECK_PLAINTEXT = 'paddock seal check v1';

const PREFIX = 'sealed:';
/** The largest sealed value opened: the control keys and certificate, with room to spare. */
const MAX_SEALED_CHARS = 65_536;

/** The key settings are sealed under, derived from the seal key file's bytes (never those bytes). */
export type SettingsKey = Buffer;

export function settingsKey(root: Buffer): SettingsKey {
  return deriveKey(root, 'paddock settings v1');
}

export const isSealed = (stored: string): boolean => stored.startsWith(PREFIX);

export function sealSetting(key: SettingsKey, name: string, plain: string): string {
  return PREFIX + seal(key, Buffer.from(plain, 'utf8'), `setting ${name}`);
}

/**
 * The plain value of a stored setting. A plain one passes as it is: the start seals those it finds
 * (a store made before sealing), and one written by an older instance is sealed at the next start.
 */
export function openSetting(key: SettingsKey, name: string, stored: string): string {
  if (!isSealed(stored)) return stored;
  const plain = open(key, stored.slice(PREFIX.length), `setting ${name}`, MAX_SEALED_CHARS);
  if (plain === undefined) throw new StoreError('sealed setting', `${name} does not open under the seal key`);
  return plain.toString('utf8');
}

export const sealCheck = (key: SettingsKey): string => sealSetting(key, SEAL_CHECK_SETTING, CHECK_PLAINTEXT);

/** Whether the stored check value was sealed under this key. */
export function checkOpens(key: SettingsKey, stored: string): boolean {
  try {
    return openSetting(key, SEAL_CHECK_SETTING, stored) === CHECK_PLAINTEXT && isSealed(stored);
  } catch {
    return false;
  }
}

type Settings = Pick<SettingsStore, 'getSetting' | 'setSettingIfAbsent' | 'setSetting' | 'replaceSetting'>;

/** The store's settings methods with the secret ones sealed; every other setting passes through. */
export function sealedSettings<S extends Settings>(store: S, key: SettingsKey): S {
  const { getSetting, setSettingIfAbsent, setSetting, replaceSetting } = store;
  return {
    ...store,
    async getSetting(name: string) {
      const stored = await getSetting(name);
      return stored === undefined || !isSecretSetting(name) ? stored : openSetting(key, name, stored);
    },
    async setSettingIfAbsent(name: string, value: string) {
      if (!isSecretSetting(name)) return setSettingIfAbsent(name, value);
      return openSetting(key, name, await setSettingIfAbsent(name, sealSetting(key, name, value)));
    },
    async setSetting(name: string, value: string) {
      await setSetting(name, isSecretSetting(name) ? sealSetting(key, name, value) : value);
    },
    // Compare and set on the stored value: it matches `expected` once opened, and is the one replaced.
    async replaceSetting(name: string, expected: string, value: string) {
      if (!isSecretSetting(name)) return replaceSetting(name, expected, value);
      const stored = await getSetting(name);
      if (stored === undefined || openSetting(key, name, stored) !== expected) return false;
      return replaceSetting(name, stored, sealSetting(key, name, value));
    },
  };
}
