/**
 * The sign-in state of `/auth/start` (docs/contract.md section 23, "No amplification"): it proves
 * by itself that this server issued it, and when, so issuing one writes nothing. It keeps the
 * specification's form, 32 bytes in URL-safe base64 without padding, and looks random to anyone
 * without the keys:
 *
 * - a block of 16 bytes, the issue time (milliseconds, 6 bytes big-endian) and 10 random bytes,
 *   encrypted with AES-256 (one block, a permutation: the time is not readable, and no two states
 *   share a block);
 * - the first 16 bytes of an HMAC-SHA-256 of that encrypted block.
 *
 * Both keys are derived (HKDF-SHA-256) from a session key, the pair for each: a state is issued
 * under the first session key and taken under any (rotation, as the session cookie), every key
 * tried whatever matches, the MAC compared in constant time. Instances share the session keys
 * (configured, or kept in the store), so a state issued on one is good on any other. That it has
 * not come back yet is the store's part (store/oidc_states.ts).
 */
import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';

/** How long a state is good for: 600 s, the state cookie's life. */
export const OIDC_STATE_LIFE_MS = 600_000;

/**
 * How far apart the clocks of instances sharing a store may be: a state issued up to this far in
 * this instance's future is taken (another instance issued it), and the store keeps a state that
 * came back this long after its 600 s, so an instance whose clock is behind still finds it.
 */
export const OIDC_STATE_CLOCK_SKEW_MS = 60_000;

const TIME_BYTES = 6;
const BLOCK_BYTES = 16;
const MAC_BYTES = 16;
/** 32 bytes: 43 characters, of which the last carries 2 unused bits (they must be zero). */
const STATE = /^[A-Za-z0-9_-]{43}$/;
// Key separation: each derived key is used for nothing else, and the label binds the MAC to its use.
const HKDF_INFO = 'paddock oidc state v1';
const MAC_LABEL = 'paddock oidc state v1\0';
const CIPHER = 'aes-256-ecb';

interface StateKeys {
  encryption: KeyObject;
  mac: KeyObject;
}

export interface OidcStateCodec {
  /** A new state, issued at `now`. */
  issue(now: number): string;
  /**
   * Until when a state must be remembered once it has come back (the end of its life on any
   * instance), or undefined when it was not issued under one of the keys, is malformed, or is not
   * within its 600 s at `now`.
   */
  verify(state: string, now: number): number | undefined;
}

/** The two keys of one session key (exported for the tests, which check the construction). */
export function oidcStateKeys(sessionKey: Buffer): StateKeys {
  const derived = Buffer.from(hkdfSync('sha256', sessionKey, Buffer.alloc(0), HKDF_INFO, 64));
  return { encryption: createSecretKey(derived.subarray(0, 32)), mac: createSecretKey(derived.subarray(32)) };
}

export function oidcStateCodec(sessionKeys: readonly Buffer[]): OidcStateCodec {
  if (sessionKeys.length === 0) throw new TypeError('oidcStateCodec: at least one key is required');
  const keys = sessionKeys.map(oidcStateKeys);
  const signing = keys[0] as StateKeys;
  const mac = (key: KeyObject, block: Buffer) =>
    createHmac('sha256', key).update(MAC_LABEL).update(block).digest().subarray(0, MAC_BYTES);
  const aes = (cipher: ReturnType<typeof createCipheriv> | ReturnType<typeof createDecipheriv>, block: Buffer) =>
    Buffer.concat([cipher.setAutoPadding(false).update(block), cipher.final()]);

  return {
    issue(now) {
      const plain = Buffer.alloc(BLOCK_BYTES);
      plain.writeUIntBE(now, 0, TIME_BYTES);
      randomBytes(BLOCK_BYTES - TIME_BYTES).copy(plain, TIME_BYTES);
      const block = aes(createCipheriv(CIPHER, signing.encryption, null), plain);
      return Buffer.concat([block, mac(signing.mac, block)]).toString('base64url');
    },

    verify(state, now) {
      if (!STATE.test(state)) return undefined;
      const bytes = Buffer.from(state, 'base64url');
      // One spelling per state: the store remembers a state that came back by the hash of its text.
      if (bytes.length !== BLOCK_BYTES + MAC_BYTES || bytes.toString('base64url') !== state) return undefined;
      const block = bytes.subarray(0, BLOCK_BYTES);
      const given = bytes.subarray(BLOCK_BYTES);
      let matched: StateKeys | undefined;
      for (const key of keys) if (timingSafeEqual(mac(key.mac, block), given)) matched ??= key;
      if (!matched) return undefined;
      const issuedAt = aes(createDecipheriv(CIPHER, matched.encryption, null), block).readUIntBE(0, TIME_BYTES);
      if (!(now < issuedAt + OIDC_STATE_LIFE_MS) || issuedAt > now + OIDC_STATE_CLOCK_SKEW_MS) return undefined;
      return issuedAt + OIDC_STATE_LIFE_MS + OIDC_STATE_CLOCK_SKEW_MS;
    },
  };
}
