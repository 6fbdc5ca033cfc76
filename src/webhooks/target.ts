/**
 * Where a webhook may be sent (docs/contract.md section 13): only `https://`, and never to a
 * loopback, private, link-local, unique-local, multicast or otherwise special address. The
 * address is checked after DNS, on the address the socket is given to connect to (send.ts), so
 * a name that resolves elsewhere the second time (DNS rebinding) gains nothing.
 * PADDOCK_WEBHOOK_ALLOW_PRIVATE lifts both rules, for labs and tests.
 */
import { BlockList, isIP } from 'node:net';

/** Each refused kind and its ranges. */
const KINDS: ReadonlyArray<readonly [kind: string, ranges: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6']>]> =
  [
    [
      'loopback',
      [
        ['127.0.0.0', 8, 'ipv4'],
        ['::1', 128, 'ipv6'],
      ],
    ],
    [
      'private',
      [
        ['10.0.0.0', 8, 'ipv4'],
        ['172.16.0.0', 12, 'ipv4'],
        ['192.168.0.0', 16, 'ipv4'],
        ['100.64.0.0', 10, 'ipv4'],
      ],
    ],
    [
      'link-local',
      [
        ['169.254.0.0', 16, 'ipv4'],
        ['fe80::', 10, 'ipv6'],
      ],
    ],
    ['unique-local', [['fc00::', 7, 'ipv6']]],
    [
      'multicast',
      [
        ['224.0.0.0', 4, 'ipv4'],
        ['ff00::', 8, 'ipv6'],
      ],
    ],
    [
      'unspecified or reserved',
      [
        ['0.0.0.0', 8, 'ipv4'],
        ['240.0.0.0', 4, 'ipv4'],
        ['192.0.0.0', 24, 'ipv4'],
        ['198.18.0.0', 15, 'ipv4'],
        ['::', 128, 'ipv6'],
        ['64:ff9b:1::', 48, 'ipv6'],
        ['2001:db8::', 32, 'ipv6'],
      ],
    ],
  ];

const LISTS = KINDS.map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [net, prefix, type] of ranges) list.addSubnet(net, prefix, type);
  return [kind, list] as const;
});

/** The embedded IPv4 address of an IPv4-mapped or -compatible IPv6 address (::ffff:10.0.0.1), if any. */
function embeddedV4(address: string): string | undefined {
  const m = /^(?:0{0,4}:){0,5}(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address.replace(/^::/, '0:'));
  if (m?.[1]) return m[1];
  // ::ffff:a00:1 in hex form.
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex?.[1] || !hex[2]) return undefined;
  const hi = parseInt(hex[1], 16);
  const lo = parseInt(hex[2], 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** The kind of address a webhook may not reach (`loopback`, `private`, …), or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 0) return 'not an address';
  const v4 = family === 6 ? embeddedV4(address) : address;
  const [checked, type] = v4 !== undefined ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  for (const [kind, list] of LISTS) if (list.check(checked, type)) return kind;
  return undefined;
}

export type UrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/** A target URL as entered: absolute, https (or http when private targets are allowed), no credentials. */
export function checkUrl(text: string, allowPrivate: boolean): UrlCheck {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'the URL is not an absolute URL' };
  }
  if (text.length > 2048) return { ok: false, reason: 'the URL is longer than 2048 characters' };
  if (url.protocol !== 'https:' && !(allowPrivate && url.protocol === 'http:'))
    return { ok: false, reason: allowPrivate ? 'the URL must be https:// or http://' : 'the URL must be https://' };
  if (url.username || url.password) return { ok: false, reason: 'the URL must not hold a user or password' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) !== 0) {
    const kind = refusedAddress(host);
    if (kind) return { ok: false, reason: `the URL's address is ${kind}` };
  }
  url.hash = '';
  return { ok: true, url };
}
