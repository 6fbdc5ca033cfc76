/**
 * The settings table as `paddock --help` prints it: each variable with its help, its default below,
 * the help wrapped at word boundaries so that every line fits in 100 columns.
 */
import { settings } from '../config/variables.ts';

const COLUMNS = 100;

/** `text` in lines of at most `width` characters, broken between words (a longer word stands alone). */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return [...lines, line];
}

export function settingsHelp(): string {
  const rows = Object.values(settings);
  const width = Math.max(...rows.map((row) => row.variable.length)) + 2;
  const indent = ' '.repeat(width);
  return rows
    .map((row) => {
      const otherwise = 'default' in row ? row.default : row.unset;
      const [first, ...more] = wrap(row.help, COLUMNS - 2 - width);
      const help = [first, ...more.map((l) => `\n  ${indent}${l}`)].join('');
      const fallback = wrap(`default: ${otherwise}`, COLUMNS - 2 - width).map((l) => `  ${indent}${l}\n`);
      return `  ${row.variable.padEnd(width)}${help}\n${fallback.join('')}`;
    })
    .join('');
}
