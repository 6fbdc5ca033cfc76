/** The few ASN.1 DER encodings (ITU-T X.690) an X.509 certificate needs. */

function length(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

export function tlv(tag: number, content: Buffer): Buffer {
  return Buffer.concat([Buffer.from([tag]), length(content.length), content]);
}

export const sequence = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
export const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
export const octetString = (content: Buffer) => tlv(0x04, content);
export const utf8String = (text: string) => tlv(0x0c, Buffer.from(text, 'utf8'));
export const boolean = (value: boolean) => tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
/** Context-specific, constructed: EXPLICIT [n]. */
export const explicit = (n: number, content: Buffer) => tlv(0xa0 | n, content);
/** Context-specific, primitive: IMPLICIT [n] of a primitive type. */
export const implicit = (n: number, content: Buffer) => tlv(0x80 | n, content);

/** A non-negative INTEGER from big-endian bytes: minimal, with a 0x00 pad when the top bit is set. */
export function unsignedInteger(bytes: Buffer): Buffer {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return tlv(0x02, (trimmed[0] ?? 0) & 0x80 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
}

export const smallInteger = (n: number) => unsignedInteger(Buffer.from([n]));

/** BIT STRING with no unused bits. */
export const bitString = (content: Buffer) => tlv(0x03, Buffer.concat([Buffer.from([0]), content]));

export function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const [first = 0, second = 0, ...rest] = parts;
  const out: number[] = [first * 40 + second];
  for (const part of rest) {
    const base128: number[] = [];
    for (let v = part; ; v = Math.floor(v / 128)) {
      base128.unshift((v & 0x7f) | (base128.length ? 0x80 : 0));
      if (v < 128) break;
    }
    out.push(...base128);
  }
  return tlv(0x06, Buffer.from(out));
}

/** RFC 5280 section 4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050, always in UTC with seconds. */
export function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const year = date.getUTCFullYear();
  return year < 2050 ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`)) : tlv(0x18, Buffer.from(`${iso}Z`));
}
