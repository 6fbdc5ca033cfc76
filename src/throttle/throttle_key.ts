/**
 * What the throttle counts a client by (docs/contract.md section 5): an IPv4 address as it is, an
 * IPv6 one by its /64, the smallest block a single subscriber is usually given (RFC 6177), so a
 * client cannot dodge its count by walking the addresses of its own network.
 */
import { isIPv6 } from 'node:net';

export function throttleKey(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const [head = '', tail] = bare.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  // A trailing dotted IPv4 part stands for two groups; it lies past the first four in any case.
  const width = (parts: string[]) => parts.reduce((n, g) => n + (g.includes('.') ? 2 : 1), 0);
  const first = groups(head);
  const last = tail === undefined ? [] : groups(tail);
  const zeros = tail === undefined ? [] : Array<string>(8 - width(first) - width(last)).fill('0');
  const prefix = [...first, ...zeros, ...last].slice(0, 4).map((g) => Number.parseInt(g, 16).toString(16));
  return `${prefix.join(':')}::/64`;
}
