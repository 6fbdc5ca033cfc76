/** PROXY protocol headers as a load balancer (or an attacker) writes them, for the tests. */
import { isIP } from 'node:net';

/** A v2 header: signature, version and command, family and transport, then `block` (addresses and TLVs). */
export function v2(versionCommand: number, family: number, block: ArrayLike<number>): Buffer {
  const head = Buffer.from([
    0x0d,
    0x0a,
    0x0d,
    0x0a,
    0x00,
    0x0d,
    0x0a,
    0x51,
    0x55,
    0x49,
    0x54,
    0x0a,
    versionCommand,
    family,
    0,
    0,
  ]);
  head.writeUInt16BE(block.length, 14);
  return Buffer.concat([head, Buffer.from(Array.from(block))]);
}

/** A TLV of `length` bytes of value. */
export function tlv(type: number, length: number): Buffer {
  const out = Buffer.alloc(3 + length, 0x61);
  out[0] = type;
  out.writeUInt16BE(length, 1);
  return out;
}

/** A v2 PROXY header for TCP from `source`:`port` (IPv4 only), as HAProxy's send-proxy-v2 sends it. */
export function v2Tcp4(source: string, port: number): Buffer {
  if (isIP(source) !== 4) throw new TypeError(`not an IPv4 address: ${source}`);
  const block = Buffer.alloc(12);
  source.split('.').forEach((part, i) => (block[i] = Number(part)));
  block.set([127, 0, 0, 1], 4);
  block.writeUInt16BE(port, 8);
  block.writeUInt16BE(443, 10);
  return v2(0x21, 0x11, block);
}

/** A v1 line for TCP from `source`:`port`. */
export function v1Tcp(source: string, port: number): Buffer {
  const family = isIP(source) === 6 ? 'TCP6' : 'TCP4';
  const destination = family === 'TCP6' ? '::1' : '127.0.0.1';
  return Buffer.from(`PROXY ${family} ${source} ${destination} ${port} 443\r\n`, 'latin1');
}

/** The v2 header HAProxy sends with its health checks: LOCAL, no addresses. */
export const V2_LOCAL = v2(0x20, 0x00, []);
