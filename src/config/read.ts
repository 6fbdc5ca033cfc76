/** Reading the settings table's variables from an environment, each one checked by its row's parser. */
import { ConfigError } from './parse.ts';
import { type Setting, type SettingName, type Settings, settings } from './variables.ts';

export type Env = Record<string, string | undefined>;

/** A setting's value: parsed from the environment, else its default parsed, else undefined. */
function read(env: Env, setting: Setting): unknown {
  const given = env[setting.variable];
  // Empty counts as unset, so `PADDOCK_X= paddock serve` means the default.
  const text = given === undefined || given === '' ? ('default' in setting ? setting.default : undefined) : given;
  if (text === undefined) return undefined;
  try {
    return setting.parse(text);
  } catch (err) {
    throw new ConfigError(setting.variable, (err as Error).message);
  }
}

export type Reader = <K extends SettingName>(name: K) => Settings[K];

/** Reads each setting once, when first asked: a bad value is reported in the order the rules meet it. */
export function reader(env: Env): Reader {
  const values = new Map<SettingName, unknown>();
  return (name) => {
    if (!values.has(name)) values.set(name, read(env, settings[name]));
    return values.get(name) as Settings[typeof name];
  };
}

/** Every setting, those not asked for yet read in the table's order. */
export function readAll(get: Reader): Settings {
  return Object.fromEntries(Object.keys(settings).map((name) => [name, get(name as SettingName)])) as Settings;
}
