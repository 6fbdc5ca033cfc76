/**
 * A receipt of what the device removed (issue 14): with a redacted or minimal upload the reference
 * client sends `X-Redaction-Receipt`, which counts its replacements per rule (never content),
 * names its version and a digest of its rule set. The server stores it beside its own level check,
 * so an operator sees both sides of the privacy promise. One grammar, parsed strictly here:
 *
 *     v=1;client=<version>;rules=sha256:<64 hex>[;<rule>=<count>]…
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { type Findings, RULES, type RuleName } from './redaction.ts';

export const RECEIPT_HEADER = 'X-Redaction-Receipt';

export interface Receipt {
  client: string;
  /** `sha256:` and the digest of the rules module the client ran. */
  rules: string;
  /** Replacements per rule; rules that replaced nothing are absent. */
  counts: Findings;
}

export const RECEIPT_RULE =
  'X-Redaction-Receipt must be v=1;client=<version>;rules=sha256:<64 hex digits> followed by ;<rule>=<count> for the rules that replaced something';

let digest: string | undefined;

/**
 * The digest of the rule set: SHA-256 over the rules module as shipped, so any change to a rule
 * changes it, and a server can tell whether a device ran the rules it runs itself.
 */
export function rulesDigest(): string {
  digest ??= `sha256:${createHash('sha256')
    .update(readFileSync(new URL('./redaction.ts', import.meta.url)))
    .digest('hex')}`;
  return digest;
}

export function formatReceipt(receipt: Receipt): string {
  const counts = RULES.filter((r) => (receipt.counts[r] ?? 0) > 0).map((r) => `;${r}=${receipt.counts[r]}`);
  return `v=1;client=${receipt.client};rules=${receipt.rules}${counts.join('')}`;
}

const CLIENT = /^[A-Za-z0-9._+-]{1,32}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;
const COUNT = /^(0|[1-9][0-9]{0,8})$/;

/** The receipt a header holds, or undefined when it is malformed in any way (then 400). */
export function parseReceipt(text: string): Receipt | undefined {
  if (text.length > 1024) return undefined;
  const parts = text.split(';');
  const [v, client, rules, ...rest] = parts.map((p) => p.split('='));
  if (v?.length !== 2 || v[0] !== 'v' || v[1] !== '1') return undefined;
  if (client?.length !== 2 || client[0] !== 'client' || !CLIENT.test(client[1] ?? '')) return undefined;
  if (rules?.length !== 2 || rules[0] !== 'rules' || !DIGEST.test(rules[1] ?? '')) return undefined;
  const counts: Findings = {};
  for (const pair of rest) {
    const [name, value] = pair;
    if (pair.length !== 2 || !(RULES as readonly string[]).includes(name ?? '') || !COUNT.test(value ?? ''))
      return undefined;
    if (counts[name as RuleName] !== undefined) return undefined;
    counts[name as RuleName] = Number(value);
  }
  return { client: client[1] ?? '', rules: rules[1] ?? '', counts };
}
