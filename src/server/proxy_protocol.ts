/**
 * The PROXY protocol header a load balancer puts in front of a connection (HAProxy's
 * doc/proxy-protocol.txt, versions 1 and 2), read from the bytes received so far. The reader is
 * strict: anything that does not match the specification exactly is invalid, and the connection
 * is closed (section 2.1: "Any sequence which does not exactly match the protocol must be
 * discarded and cause the receiver to abort the connection").
 */
import { isIP, SocketAddress } from 'node:net';

/**
 * What the header says about the connection. `local`: the balancer's own connection (a v2 LOCAL
 * health check); `unknown`: a relayed one whose addresses the balancer could not or would not give
 * (v1 UNKNOWN, v2 UNSPEC, and the families Paddock does not serve: UDP, UNIX). Both mean the real
 * peer is the client. `proxy`: the client is the source named.
 */
export type ProxyHeader =
  { command: 'local' | 'unknown' } | { command: 'proxy'; source: { address: string; port: number } };

export type ProxyRead =
  | { kind: 'incomplete' }
  | { kind: 'invalid'; reason: string }
  /** `length`: the header's bytes; whatever follows them is the connection's own. */
  | { kind: 'header'; header: ProxyHeader; length: number };

const V1_SIGNATURE = Buffer.from('PROXY', 'latin1');
const V2_SIGNATURE = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a]);
/** Section 2.1: the longest v1 line, CRLF included ("PROXY UNKNOWN" with two IPv6 addresses). */
export const V1_MAX_BYTES = 107;
/**
 * The longest v2 header read (16 bytes and the addresses and TLVs after them): the addresses take
 * at most 216 bytes (UNIX), which leaves over 1.8 KiB of TLVs, more than a balancer sends (its SSL
 * details, a unique id of at most 128 bytes, a cloud's endpoint id). The field allows 64 KiB; a
 * header announcing more than this is refused before any of it is kept.
 */
export const V2_MAX_BYTES = 2_048;
const V2_FIXED = 16;

/** How bytes begin: with a PROXY signature, not, or too few to tell. */
export function signatureOf(bytes: Buffer): 'v1' | 'v2' | 'none' | 'incomplete' {
  let incomplete = false;
  for (const [name, signature] of [
    ['v1', V1_SIGNATURE],
    ['v2', V2_SIGNATURE],
  ] as const) {
    const n = Math.min(bytes.length, signature.length);
    if (!bytes.subarray(0, n).equals(signature.subarray(0, n))) continue;
    if (n === signature.length) return name;
    incomplete = true;
  }
  return incomplete ? 'incomplete' : 'none';
}

/** Reads the header at the start of `bytes`, if they hold it whole. */
export function readProxyHeader(bytes: Buffer): ProxyRead {
  const signature = signatureOf(bytes);
  if (signature === 'incomplete') return { kind: 'incomplete' };
  if (signature === 'v1') return readV1(bytes);
  if (signature === 'v2') return readV2(bytes);
  return { kind: 'invalid', reason: 'no PROXY protocol header' };
}

const invalid = (reason: string): ProxyRead => ({ kind: 'invalid', reason });

/** Section 2.1: `PROXY TCP4|TCP6 <source> <destination> <source port> <destination port>\r\n`. */
function readV1(bytes: Buffer): ProxyRead {
  const window = bytes.subarray(0, V1_MAX_BYTES);
  const lf = window.indexOf(0x0a);
  const cr = window.indexOf(0x0d);
  // "The receiver must not tolerate a single CR or LF character to end the line."
  if (lf !== -1 && cr !== lf - 1) return invalid('v1: a line must end with CRLF');
  if (lf === -1 && cr !== -1 && cr + 1 < window.length) return invalid('v1: a line must end with CRLF');
  if (lf === -1) return window.length < V1_MAX_BYTES ? { kind: 'incomplete' } : invalid('v1: no CRLF in 107 bytes');
  const line = window.subarray(0, cr).toString('latin1');
  if (!/^[\x20-\x7e]+$/.test(line)) return invalid('v1: not printable US-ASCII');
  const fields = line.split(' ');
  const length = lf + 1;
  if (fields[0] !== 'PROXY') return invalid('v1: PROXY must be followed by one space');
  // "For UNKNOWN, ... the receiver must ignore anything presented before the CRLF is found."
  if (fields[1] === 'UNKNOWN') return { kind: 'header', header: { command: 'unknown' }, length };
  if (fields[1] !== 'TCP4' && fields[1] !== 'TCP6') return invalid('v1: the protocol must be TCP4, TCP6 or UNKNOWN');
  if (fields.length !== 6) return invalid('v1: TCP4 and TCP6 take two addresses and two ports');
  const [, family, source = '', destination = '', sourcePort = '', destinationPort = ''] = fields;
  const version = family === 'TCP4' ? 4 : 6;
  if (!isAddress(source, version) || !isAddress(destination, version))
    return invalid(`v1: the addresses must be IPv${version} addresses`);
  if (!isPort(sourcePort) || !isPort(destinationPort)) return invalid('v1: a port must be 0 to 65535');
  const address = version === 4 ? source : new SocketAddress({ address: source, family: 'ipv6' }).address;
  return { kind: 'header', header: { command: 'proxy', source: { address, port: Number(sourcePort) } }, length };
}

/** In canonical form for the family: no leading zeros (IPv4: isIP refuses them), no IPv6 zone. */
function isAddress(text: string, version: 4 | 6): boolean {
  return isIP(text) === version && !text.includes('%');
}

function isPort(text: string): boolean {
  return /^(0|[1-9][0-9]{0,4})$/.test(text) && Number(text) <= 65_535;
}

/** Address bytes per family (section 2.2): INET, INET6; UNIX addresses are not read, only skipped. */
const ADDRESS_BYTES: Record<number, number> = { 0x11: 12, 0x21: 36 };
/** The other valid family and transport bytes: UNSPEC, UDP over IPv4 and IPv6, UNIX stream and datagram. */
const FALLBACK = new Set([0x00, 0x12, 0x22, 0x31, 0x32]);

/** Section 2.2: 12 bytes of signature, version and command, family and transport, length, then the block. */
function readV2(bytes: Buffer): ProxyRead {
  if (bytes.length < V2_FIXED) return { kind: 'incomplete' };
  const versionCommand = bytes[12] ?? 0;
  const family = bytes[13] ?? 0;
  const length = V2_FIXED + bytes.readUInt16BE(14);
  if (versionCommand >> 4 !== 2) return invalid('v2: the version must be 2');
  const command = versionCommand & 0x0f;
  if (command > 1) return invalid('v2: the command must be LOCAL or PROXY');
  if (length > V2_MAX_BYTES) return invalid(`v2: a header of ${length} bytes is over ${V2_MAX_BYTES}`);
  if (bytes.length < length) return { kind: 'incomplete' };
  // LOCAL: "the receiver must accept this connection as valid and must use the real connection
  // endpoints and discard the protocol block including the family which is ignored".
  if (command === 0) return { kind: 'header', header: { command: 'local' }, length };
  const addressBytes = ADDRESS_BYTES[family];
  if (addressBytes === undefined) {
    // "A receiver is not required to implement other ones, provided that it automatically falls
    // back to the UNSPEC mode for the valid combinations above that it does not support."
    if (FALLBACK.has(family)) return { kind: 'header', header: { command: 'unknown' }, length };
    return invalid('v2: unknown address family or transport');
  }
  if (length < V2_FIXED + addressBytes) return invalid('v2: the length is shorter than the addresses');
  const tlvs = checkTlvs(bytes.subarray(V2_FIXED + addressBytes, length));
  if (tlvs !== undefined) return invalid(tlvs);
  const source = addressBytes === 12 ? ipv4(bytes.subarray(16, 20)) : ipv6(bytes.subarray(16, 32));
  const port = bytes.readUInt16BE(V2_FIXED + addressBytes - 4);
  return { kind: 'header', header: { command: 'proxy', source: { address: source, port } }, length };
}

/** The TLVs after the addresses are skipped, but each must lie whole inside the header. */
function checkTlvs(block: Buffer): string | undefined {
  for (let at = 0; at < block.length;) {
    if (block.length - at < 3) return 'v2: a TLV is cut short';
    at += 3 + block.readUInt16BE(at + 1);
    if (at > block.length) return 'v2: a TLV runs past the header';
  }
  return undefined;
}

function ipv4(bytes: Buffer): string {
  return [...bytes].join('.');
}

/** As Node names a peer: RFC 5952's canonical text (lower case, the longest run of zeros as ::). */
function ipv6(bytes: Buffer): string {
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  return new SocketAddress({ address: groups.join(':'), family: 'ipv6' }).address;
}
