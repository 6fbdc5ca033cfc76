/** The settings table as `paddock --help` prints it: each variable with its help, its default below. */
import { settings } from '../config/variables.ts';

export function settingsHelp(): string {
  const rows = Object.values(settings);
  const width = Math.max(...rows.map((row) => row.variable.length)) + 2;
  const indent = ' '.repeat(width);
  return rows
    .map((row) => {
      const otherwise = 'default' in row ? row.default : row.unset;
      return `  ${row.variable.padEnd(width)}${row.help}\n  ${indent}default: ${otherwise}\n`;
    })
    .join('');
}
