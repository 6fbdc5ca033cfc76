/** Validators for configuration values; each returns the parsed value or throws a message. */
import { isIP, SocketAddress } from 'node:net';
import type { Level } from '../log/logger.ts';

export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, message: string) {
    super(`${variable}: ${message}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

/** True for `localhost`, 127.0.0.0/8 and ::1: the hosts on which plain HTTP is acceptable. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  return isIP(h) === 4 && h.startsWith('127.');
}

export function parseBoolean(text: string): boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  throw new Error('must be "true" or "false"');
}

export function parsePositiveInt(text: string, max: number, unit = ' of seconds'): number {
  if (!/^[0-9]{1,10}$/.test(text)) throw new Error(`must be a whole number${unit}`);
  const n = Number(text);
  if (n < 1 || n > max) throw new Error(`must be between 1 and ${max}`);
  return n;
}

const DURATION_UNITS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A bearer token an operator chose: long enough not to be guessed, printable, no spaces. */
export function parseMetricsToken(text: string): string {
  if (!/^[\x21-\x7e]{32,256}$/.test(text)) throw new Error('must be 32 to 256 printable characters without spaces');
  return text;
}

const SIZE_UNITS = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 } as const;

/**
 * A size as docs/contract.md section 10 writes it: a positive integer followed by `KiB`, `MiB` or `GiB`
 * (`512MiB`), at most 1,024 TiB; returned in bytes.
 */
export function parseSize(text: string): number {
  const m = /^([1-9][0-9]{0,9})(KiB|MiB|GiB)$/.exec(text);
  if (!m) throw new Error('must be a positive whole number followed by KiB, MiB or GiB (for example 512MiB)');
  const bytes = Number(m[1]) * SIZE_UNITS[m[2] as keyof typeof SIZE_UNITS];
  if (bytes > 1024 ** 5) throw new Error('must be at most 1048576GiB');
  return bytes;
}

/**
 * A duration as docs/contract.md section 9 writes it: a positive integer followed by `s`, `m`, `h` or `d`
 * (`30d`), at most ten years; returned in milliseconds.
 */
export function parseDuration(text: string): number {
  const m = /^([1-9][0-9]{0,9})([smhd])$/.exec(text);
  if (!m) throw new Error('must be a positive whole number followed by s, m, h or d (for example 30d)');
  const ms = Number(m[1]) * DURATION_UNITS[m[2] as keyof typeof DURATION_UNITS];
  if (ms > 3650 * 86_400_000) throw new Error('must be at most ten years');
  return ms;
}

export function parseListen(text: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(text);
  if (!m) throw new Error('must be host:port, for example 127.0.0.1:8080');
  const port = Number(m[2]);
  if (port > 65535) throw new Error('port must be at most 65535');
  return { host: (m[1] ?? '').replace(/^\[(.*)\]$/, '$1'), port };
}

/** An absolute http(s) URL without credentials, query or fragment. */
export function parseHttpUrl(text: string): URL {
  // The URL parser would quietly drop spaces and tabs; a setting is taken as written or refused.
  if (!/^[\x21-\x7e]+$/.test(text)) throw new Error('must be an absolute URL without spaces or control characters');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('must be an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be http or https');
  if (url.username || url.password) throw new Error('must not contain credentials');
  if (url.search || url.hash) throw new Error('must not contain a query or fragment');
  return url;
}

/** A URL checked like parseHttpUrl but kept as written: it must equal what is registered elsewhere. */
export function parseHttpUrlAsWritten(text: string): string {
  parseHttpUrl(text);
  return text;
}

/** An issuer URL: `https` unless the host is a loopback address. */
export function parseIssuer(text: string): string {
  const url = parseHttpUrl(text);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
    throw new Error('must use https unless the host is a loopback address');
  }
  return text;
}

/** Printable ASCII (or `pattern`) of at most `max` characters. */
export const parseText =
  (max: number, pattern = /^[\x21-\x7e]+$/) =>
  (text: string): string => {
    if (text.length > max) throw new Error(`must be at most ${max} characters`);
    if (!pattern.test(text)) throw new Error('contains characters that are not allowed');
    return text;
  };

export function parsePostgresUrl(text: string): string {
  if (!/^postgres(ql)?:\/\/./.test(text)) throw new Error('must be a postgres:// or postgresql:// URL');
  return text;
}

export function parsePassword(text: string): string {
  if ([...text].length < 12) throw new Error('must have at least 12 characters');
  if (text.length > 1024) throw new Error('must be at most 1024 characters');
  return text;
}

/** A DNS name or IP address, lower case. */
export function parseHostName(text: string): string {
  if (!/^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(text)) throw new Error('must be a host name');
  return text.toLowerCase();
}

export function parseLogLevel(text: string): Level {
  if (text === 'debug' || text === 'info' || text === 'warn' || text === 'error') return text;
  throw new Error('must be one of debug, info, warn, error');
}

/** Comma-separated keys, spaces around commas allowed; see parseBase64Key. */
export function parseBase64Keys(text: string): Buffer[] {
  return text.split(',').map((key) => parseBase64Key(key.trim()));
}

/** Strict standard base64 (RFC 4648 section 4), padding optional; returns the bytes. */
export function parseBase64Key(text: string): Buffer {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(text) || text.replace(/=+$/, '').length % 4 === 1) {
    throw new Error('each key must be base64');
  }
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length < 32) throw new Error('each key must decode to at least 32 bytes');
  return bytes;
}

/** An address or a CIDR range of them: the trusted load balancers of PADDOCK_PROXY_PROTOCOL_FROM. */
export interface AddressRange {
  address: string;
  /** Leading bits that must match: 32 or 128 for a single address. */
  prefix: number;
  family: 4 | 6;
}

/**
 * Comma-separated IP addresses or CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`, `192.0.2.7`), spaces
 * around commas allowed. A range with bits set past its prefix is refused rather than rounded: it
 * is a mistake, and rounding it would trust more than was written.
 */
export function parseAddressRanges(text: string): AddressRange[] {
  if (text.length > 4096) throw new Error('must be at most 4096 characters');
  return text.split(',').map((item) => parseAddressRange(item.trim()));
}

function parseAddressRange(text: string): AddressRange {
  if (text === '') throw new Error('has an empty item between commas');
  const m = /^([0-9A-Fa-f:.]+)(?:\/(0|[1-9][0-9]{0,2}))?$/.exec(text);
  const address = m?.[1] ?? '';
  const version = isIP(address);
  if (!m || version === 0)
    throw new Error(`${JSON.stringify(text)} is not an IP address or a CIDR range (such as 10.0.0.0/8)`);
  const family = version === 4 ? 4 : 6;
  if (family === 6 && /\./.test(address))
    throw new Error(`${JSON.stringify(text)}: write an IPv4 address as such, not inside an IPv6 one`);
  const bits = family === 4 ? 32 : 128;
  const prefix = m[2] === undefined ? bits : Number(m[2]);
  if (prefix > bits) throw new Error(`${JSON.stringify(text)}: the prefix must be 0 to ${bits}`);
  const value = addressBits(address, family);
  const host = bits - prefix === 0 ? 0n : value & ((1n << BigInt(bits - prefix)) - 1n);
  if (host !== 0n) {
    const network = formatBits(value - host, family);
    throw new Error(`${JSON.stringify(text)} has bits set past its prefix; the range is ${network}/${prefix}`);
  }
  return { address, prefix, family };
}

/** An IP address as an unsigned integer of 32 or 128 bits. */
function addressBits(address: string, family: 4 | 6): bigint {
  if (family === 4) return address.split('.').reduce((n, part) => (n << 8n) | BigInt(part), 0n);
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const written = [...groups(head), ...(tail === undefined ? [] : groups(tail))];
  const all = tail === undefined ? written : [...groups(head), ...Array(8 - written.length).fill('0'), ...groups(tail)];
  return all.reduce((n: bigint, group: string) => (n << 16n) | BigInt(`0x${group}`), 0n);
}

function formatBits(value: bigint, family: 4 | 6): string {
  if (family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 255n)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - i * 16)) & 0xffffn).toString(16));
  return new SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}

/** Where audit records go (docs/contract.md section 13): a collector's TCP or TLS address. */
export interface SyslogTarget {
  scheme: 'tcp' | 'tls';
  /** A DNS name or an IP address (IPv6 without brackets). */
  host: string;
  port: number;
  /** As written, for messages. */
  text: string;
}

/** `tcp://host:port` or `tls://host:port` (IPv6 in brackets), nothing more. */
export function parseSyslogTarget(text: string): SyslogTarget {
  const m = /^([a-z]+):\/\/(\[[0-9a-fA-F:.]+\]|[^/:[\]]*)(?::([0-9]{1,5}))?$/.exec(text);
  if (!m) throw new Error('must be tcp://host:port or tls://host:port');
  const scheme = m[1];
  if (scheme !== 'tcp' && scheme !== 'tls') throw new Error(`must be tcp:// or tls://, not ${scheme}://`);
  const bracketed = /^\[(.*)\]$/.exec(m[2] ?? '');
  const host = bracketed ? (bracketed[1] ?? '') : (m[2] ?? '');
  if (bracketed ? isIP(host) !== 6 : !/^[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/.test(host))
    throw new Error('must name a host: a DNS name or an IP address (IPv6 in brackets)');
  if (m[3] === undefined) throw new Error('must give the port, for example tls://logs.example.net:6514');
  const port = Number(m[3]);
  if (port < 1 || port > 65535) throw new Error('port must be between 1 and 65535');
  return { scheme, host: host.toLowerCase(), port, text };
}
