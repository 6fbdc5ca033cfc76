/**
 * Where a webhook may be sent (docs/contract.md section 13): only `https://`, and never to a
 * loopback, private, link-local, unique-local, multicast or otherwise special address. The
 * address is checked after DNS, on the address the socket is given to connect to (send.ts), so
 * a name that resolves elsewhere the second time (DNS rebinding) gains nothing. An IPv4 address
 * written inside IPv6 is checked as the IPv4 address it is (security review finding 3, issue 34).
 * PADDOCK_WEBHOOK_ALLOW_PRIVATE lifts both rules, for labs and tests.
 */
import { BlockList, isIP } from 'node:net';

type Range = readonly [net: string, prefix: number, type: 'ipv4' | 'ipv6'];

/** Each refused kind and its ranges (RFC 6890's special-purpose registries, IPv4 and IPv6). */
const KINDS: ReadonlyArray<readonly [kind: string, ranges: readonly Range[]]> = [
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
  // Deprecated (RFC 3879), but a network may still route it as its own.
  ['site-local', [['fec0::', 10, 'ipv6']]],
  [
    'multicast',
    [
      ['224.0.0.0', 4, 'ipv4'],
      ['ff00::', 8, 'ipv6'],
    ],
  ],
  // Addresses a tunnel or translator turns into an IPv4 address at its far end, where the check
  // cannot follow: NAT64's well-known prefix (RFC 6052; the security review asks it refused whole,
  // docs/decisions.md), 6to4 (RFC 3056), Teredo (RFC 4380), the local-use NAT64 prefix (RFC 8215,
  // whose IPv4 address may sit at any of RFC 6052's offsets) and SIIT's IPv4-translated form
  // (RFC 2765). Refused whole, whatever address they carry.
  [
    'tunnelled or translated',
    [
      ['64:ff9b::', 96, 'ipv6'],
      ['2002::', 16, 'ipv6'],
      ['2001::', 32, 'ipv6'],
      ['64:ff9b:1::', 48, 'ipv6'],
      ['::ffff:0:0:0', 96, 'ipv6'],
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
      ['2001:db8::', 32, 'ipv6'],
    ],
  ],
];

const LISTS = KINDS.map(([kind, ranges]) => {
  const list = new BlockList();
  for (const [net, prefix, type] of ranges) list.addSubnet(net, prefix, type);
  return [kind, list] as const;
});

/**
 * The eight 16-bit words of an IPv6 address, its zone (`%eth0`) dropped. The WHATWG URL parser
 * reads the address (dotted quad, capitals, leading zeros and all) and writes it back canonical:
 * lower-case hex words, at most one `::`, no dotted quad; only that form is split here.
 */
function words(address: string): number[] | undefined {
  let host: string;
  try {
    host = new URL(`http://[${address.split('%')[0] ?? ''}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const halves = host.split('::');
  const read = (part: string | undefined) =>
    part ? part.split(':').map((w) => (/^[0-9a-f]{1,4}$/.test(w) ? parseInt(w, 16) : NaN)) : [];
  const head = read(halves[0]);
  const tail = read(halves[1]);
  const gap = 8 - head.length - tail.length;
  if (halves.length > 2 || (halves.length === 2 ? gap < 1 : gap !== 0)) return undefined;
  const all = [...head, ...Array<number>(gap).fill(0), ...tail];
  return all.every((w) => w >= 0 && w <= 0xffff) ? all : undefined;
}

/**
 * The IPv4 address carried in the last 32 bits of an IPv6 address that is only a way of writing
 * it: IPv4-mapped `::ffff:a.b.c.d` and IPv4-compatible `::a.b.c.d` (RFC 4291 section 2.5.5).
 * Checked as that address (NAT64's forms are refused whole, above).
 */
function carriedV4(w: readonly number[]): string | undefined {
  const zero = (from: number, to: number) => w.slice(from, to).every((x) => x === 0);
  const mapped = zero(0, 5) && w[5] === 0xffff;
  const compatible = zero(0, 6);
  if (!mapped && !compatible) return undefined;
  const [hi = 0, lo = 0] = w.slice(6);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

function kindOf(address: string, type: 'ipv4' | 'ipv6'): string | undefined {
  for (const [kind, list] of LISTS) if (list.check(address, type)) return kind;
  return undefined;
}

/** The kind of address a webhook may not reach (`loopback`, `private`, …), or undefined when it may. */
export function refusedAddress(address: string): string | undefined {
  const family = isIP(address);
  if (family === 4) return kindOf(address, 'ipv4');
  const w = family === 6 ? words(address) : undefined;
  if (!w) return 'not an address';
  // The IPv6 ranges first, so that ::1 and :: keep their own kinds; then what an address carries.
  const canonical = w.map((x) => x.toString(16)).join(':');
  const kind = kindOf(canonical, 'ipv6');
  if (kind !== undefined) return kind;
  const v4 = carriedV4(w);
  return v4 === undefined ? undefined : kindOf(v4, 'ipv4');
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
