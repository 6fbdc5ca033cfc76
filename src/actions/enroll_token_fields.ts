/**
 * The mint form's optional fields (docs/contract.md section 9), read strictly: an empty field takes its
 * default, anything else must be valid, and a bad one names its field (MINT_FIELD).
 */
import {
  type Approval,
  EXPIRES_IN_MAX,
  EXPIRES_IN_MIN,
  isApproval,
  NOTE_MAX,
  USES_MAX,
  USES_MIN,
} from '../domain/enroll_tokens.ts';
import { DEVICE_NAME, VISIBLE_CHAR } from '../domain/names.ts';
import { isPrivacyLevel, type PrivacyLevel } from '../domain/privacy.ts';
import { parseLabelLines, type Labels } from '../domain/labels.ts';

/** The mint's failures, each the name of its plain-text 400 (http/failures.ts) and of a field in the API. */
export type MintFailure =
  'badOwner' | 'badExpiresIn' | 'badUses' | 'badDeviceName' | 'badNote' | 'badMaxPrivacy' | 'badLabels' | 'badApproval';

/** The field each failure is about, as the form and the API's JSON name it. */
export const MINT_FIELD: Readonly<Record<MintFailure, string>> = {
  badOwner: 'owner',
  badExpiresIn: 'expires_in',
  badUses: 'uses',
  badDeviceName: 'name',
  badNote: 'note',
  badMaxPrivacy: 'max_privacy',
  badLabels: 'labels',
  badApproval: 'approval',
};

export interface MintFields {
  expiresInSeconds: number;
  uses: number;
  /** Empty: the device names itself. */
  name: string;
  note: string;
  maxPrivacy: PrivacyLevel;
  /** The labels every device it enrolls starts with (docs/contract.md section 12). */
  labels: Labels;
  /** Whether the devices it enrolls wait for an administrator's approval (docs/contract.md section 16). */
  approval: Approval;
}

const NOTE = new RegExp(`^${VISIBLE_CHAR}{0,${NOTE_MAX}}$`, 'u');

/** A whole number within [min, max] written in plain digits, or undefined. */
function wholeNumber(text: string, min: number, max: number): number | undefined {
  if (!/^[0-9]{1,10}$/.test(text)) return undefined;
  const n = Number(text);
  return n >= min && n <= max ? n : undefined;
}

/** The fields, or the failure of the first bad one; `defaultTtlSeconds` is PADDOCK_ENROLL_TOKEN_TTL. */
export function readMintFields(
  form: ReadonlyMap<string, string>,
  defaultTtlSeconds: number,
): { ok: true; fields: MintFields } | { ok: false; failure: Exclude<MintFailure, 'badOwner'>; detail?: string } {
  const field = (name: string) => (form.get(name) ?? '').trim();
  const expiresIn = field('expires_in');
  const expiresInSeconds =
    expiresIn === '' ? defaultTtlSeconds : wholeNumber(expiresIn, EXPIRES_IN_MIN, EXPIRES_IN_MAX);
  if (expiresInSeconds === undefined) return { ok: false, failure: 'badExpiresIn' };
  const usesText = field('uses');
  const uses = usesText === '' ? 1 : wholeNumber(usesText, USES_MIN, USES_MAX);
  if (uses === undefined) return { ok: false, failure: 'badUses' };
  const name = field('name');
  if (name !== '' && !DEVICE_NAME.test(name)) return { ok: false, failure: 'badDeviceName' };
  const note = field('note');
  if (!NOTE.test(note)) return { ok: false, failure: 'badNote' };
  const privacy = field('max_privacy') || 'full';
  if (!isPrivacyLevel(privacy)) return { ok: false, failure: 'badMaxPrivacy' };
  // One key=value a line, as on the device page; the refusal names the label.
  const labels = parseLabelLines(form.get('labels') ?? '');
  if (!labels.ok) return { ok: false, failure: 'badLabels', detail: labels.error };
  // The form's checkbox sends `required` when ticked and nothing when not.
  const approval = field('approval') || 'automatic';
  if (!isApproval(approval)) return { ok: false, failure: 'badApproval' };
  return {
    ok: true,
    fields: { expiresInSeconds, uses, name, note, maxPrivacy: privacy, labels: labels.value, approval },
  };
}
