/**
 * What a name shown in the console may hold: no controls (C0, DEL, C1), no format or otherwise
 * invisible characters (bidi overrides, zero-width, Hangul fillers), and no lone surrogates,
 * private-use or unassigned code points, which could make one name look like another in the
 * console and in log records.
 */
export const VISIBLE_CHAR = String.raw`[^\0-\x1f\x7f-\x9f\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]`;

/** A device name: 1 to 128 visible characters. */
export const DEVICE_NAME = new RegExp(`^${VISIBLE_CHAR}{1,128}$`, 'u');

export const DEVICE_NAME_RULE = 'name must be 1 to 128 printable characters';
