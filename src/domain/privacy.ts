/**
 * The privacy levels a device chooses for a run (docs/contract.md section 6), from the most revealing to
 * the most private. The one list every check, form, view, schema constraint and client reads.
 */
export const PRIVACY_LEVELS = ['full', 'redacted', 'minimal'] as const;

export type PrivacyLevel = (typeof PRIVACY_LEVELS)[number];

export function isPrivacyLevel(value: unknown): value is PrivacyLevel {
  return (PRIVACY_LEVELS as readonly unknown[]).includes(value);
}

/**
 * Whether `level` is within a device's privacy ceiling (docs/contract.md section 10): the ceiling itself
 * or a more private level (full > redacted > minimal).
 */
export function withinCeiling(level: PrivacyLevel, ceiling: PrivacyLevel): boolean {
  return PRIVACY_LEVELS.indexOf(level) >= PRIVACY_LEVELS.indexOf(ceiling);
}

/** "full, redacted or minimal", for messages that name the allowed values. */
export const PRIVACY_LEVELS_TEXT = `${PRIVACY_LEVELS.slice(0, -1).join(', ')} or ${PRIVACY_LEVELS.at(-1)}`;
