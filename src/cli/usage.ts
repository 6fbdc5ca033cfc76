/**
 * The CLI's usage mistakes, said in one line: an unknown command or option names the nearest one
 * and where the help is, and parseArgs's own advice (written for programs, with an unbalanced
 * quote) is replaced by ours. Every usage mistake exits 2.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { printable } from './table.ts';

export class UsageError extends Error {
  readonly code = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * Edit distance between two short words, counting a letter added, removed or changed, or two
 * neighbours swapped (the commonest typing slip), as one edit each (optimal string alignment).
 */
export function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => d[i]?.[j] ?? 0;
  for (let i = 1; i <= a.length; i++)
    for (let j = 1; j <= b.length; j++) {
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (d[i] as number[])[j] = best;
    }
  return at(a.length, b.length);
}

/**
 * The candidate nearest to `word`, if it is near enough to be what was meant: at most a third of
 * its letters changed (at least one), or one of them starts with the other (`dev` for `devices`).
 */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const w = word.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const name of candidates) {
    const d = distance(w, name.toLowerCase());
    if (!best || d < best.d) best = { name, d };
  }
  if (!best) return undefined;
  if (best.d <= Math.max(1, Math.floor(best.name.length / 3))) return best.name;
  const prefixed = candidates.filter((c) => w.length >= 3 && (c.startsWith(w) || w.startsWith(c)));
  return prefixed.length === 1 ? prefixed[0] : undefined;
}

/** `unknown command "lunch"; did you mean "launch"? (see paddock --help)` */
export function unknownCommand(word: string, candidates: readonly string[], help: string): string {
  // `--serve` for `serve`: a command written as an option is still the command meant.
  const near = nearest(word.replace(/^-+/, ''), candidates);
  return `unknown command "${printable(word)}"${near ? `; did you mean "${near}"?` : ''} (see ${help})`;
}

type Options = NonNullable<ParseArgsConfig['options']>;

/**
 * parseArgs in strict mode, with its errors turned into one UsageError line: the unknown option
 * and the nearest known one, a missing value, or an argument the command does not take.
 */
export function parseOptions<O extends Options>(args: string[], options: O, help: string, allowPositionals = true) {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(parseFailure(err, options, help));
  }
}

function parseFailure(err: unknown, options: Options, help: string): string {
  const { code, message } = err as { code?: string; message?: string };
  const quoted = /'([^']*)'/.exec(message ?? '')?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const name = quoted.replace(/^-+/, '').split('=')[0] ?? '';
    const near = nearest(
      name,
      Object.keys(options).filter((o) => o.length > 1),
    );
    return `unknown option ${printable(quoted)}${near ? `; did you mean --${near}?` : ''} (see ${help})`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    const option = /^(-\S+)/.exec(quoted)?.[1] ?? quoted;
    return `option ${printable(option)} ${/argument missing/.test(message ?? '') ? 'needs a value' : 'takes no value'} (see ${help})`;
  }
  if (code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL')
    return `unexpected argument "${printable(quoted)}" (see ${help})`;
  return `${printable(message ?? String(err))} (see ${help})`;
}
