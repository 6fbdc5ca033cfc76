/**
 * What a device accepts as its new pin set (docs/contract.md sections 16 and 23): a `GET /v1/pins`
 * answer read strictly, then judged against the set the device holds.
 */
import { MAX_PINS, PIN } from '../domain/pins.ts';

/** The `pins` of a GET /v1/pins answer, each checked. */
export function pinSet(body: Buffer): string[] {
  let pins: unknown;
  try {
    pins = (JSON.parse(body.toString('utf8')) as { pins?: unknown } | null)?.pins;
  } catch {
    throw new Error('the answer is not JSON');
  }
  if (
    !Array.isArray(pins) ||
    pins.length === 0 ||
    pins.length > MAX_PINS ||
    !pins.every((pin) => typeof pin === 'string' && PIN.test(pin))
  )
    throw new Error(`the answer has no "pins" list of 1 to ${MAX_PINS} pins`);
  return pins as string[];
}

/**
 * Why the device refuses `offered` in place of `held` (both current first), or undefined when it
 * takes it. The set is fetched over a connection the held pins trust, so whoever answers holds one
 * of those keys: when that is a thief of the current key (a leaked key file), a set that dropped
 * the next pin would outlast the rotation meant to shut them out, the device trusting the thief's
 * keys and not the server's. So a set must keep the next pin unless it has become the current one
 * (the rotation itself), and a rotation never names the key it replaced as next again (a set
 * `[next, current]` would make the stolen key the one the following rotation may not drop). A
 * thief of both keys (a copy of the store) is answered by `rotate-control-key --compromised`,
 * after which the device's pin check fails and it needs a new link.
 */
export function pinSetRefusal(held: readonly string[], offered: readonly string[]): string | undefined {
  const [current, next] = held;
  if (next === undefined) return undefined;
  if (!offered.includes(next)) return `the set drops the next pin held, ${next}, without making it current`;
  if (offered[0] === next && offered[1] === current)
    return `the set makes the next pin held current and names the current one, ${current}, as next again`;
  return undefined;
}
