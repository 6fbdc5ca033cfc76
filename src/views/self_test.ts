/**
 * The dashboard's self-test result (the specification's "dashboard with version and self-test
 * result"): one folded line while every check passes, its table (and what each check found, the
 * certificate pins among it) a click away; the table open, with the count of failures, when one fails.
 */
import type { CheckResult } from '../selftest/selftest.ts';
import { html, type Html } from './html.ts';

/** The line the fold shows: all passed, naming any check that needs attention soon. */
export function passedLine(checks: readonly CheckResult[]): string {
  const warned = checks.filter((c) => c.warning).map((c) => c.name);
  const all = `All ${checks.length} check${checks.length === 1 ? '' : 's'} passed`;
  return warned.length === 0 ? all : `${all}; needs attention soon: ${warned.join(', ')}`;
}

/** Whether the self-test leads the page: a check failed. */
export function selfTestFailed(checks: readonly CheckResult[]): boolean {
  return checks.some((c) => !c.ok);
}

/** `details`: what each check found is shown (administrators). */
export function selfTestSection(checks: readonly CheckResult[], details: boolean): Html {
  const failed = checks.filter((c) => !c.ok).length;
  const note = details ? '' : html`<p>What each check found is shown to administrators.</p>`;
  if (failed > 0)
    return html`<h2>Self-test: ${failed} of ${checks.length} checks failed</h2>
      ${note} ${checksTable(checks, details)}`;
  return html`<details>
    <summary>Self-test: ${passedLine(checks)}.</summary>
    ${note} ${checksTable(checks, details)}
  </details>`;
}

function checksTable(checks: readonly CheckResult[], details: boolean): Html {
  return html`<table>
    <caption>
      Self-test checks
    </caption>
    <thead>
      <tr>
        <th scope="col">Check</th>
        <th scope="col">Outcome</th>
        ${details ? html`<th scope="col">Detail</th>` : ''}
      </tr>
    </thead>
    <tbody>
      ${checks.map(
        (c) =>
          html`<tr>
            <th scope="row">${c.name}</th>
            <td>${c.ok ? (c.warning ? 'warning' : 'passed') : 'FAILED'}</td>
            ${details ? html`<td>${c.detail}</td>` : ''}
          </tr> `,
      )}
    </tbody>
  </table>`;
}
