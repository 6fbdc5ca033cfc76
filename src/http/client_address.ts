/**
 * The client address for logs and the throttle: the socket's remote address without its port.
 * X-Forwarded-For is ignored by design (specification, Authentication item 6): it is client-supplied.
 */
import type { Context } from 'hono';

export function clientAddress(c: Context): string {
  const env = c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined;
  const address = env?.incoming?.socket?.remoteAddress ?? 'unknown';
  // An IPv4 client on a dual-stack socket appears as ::ffff:a.b.c.d; log the address it really has.
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}
