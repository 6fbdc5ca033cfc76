/**
 * Room kept on the data directory's filesystem for the writes that free space or let an operator
 * in: when the disk fills, sign-in, revocation and deletion release this file and go through, so
 * an operator can sign in and delete runs while uploads are refused. It is written again once
 * there is room.
 */
import { closeSync, openSync, unlinkSync, writeSync } from 'node:fs';

export const RESERVE_BYTES = 4 * 1024 * 1024;
/** How often a released reserve is tried again while writes succeed. */
const RETRY_MS = 10_000;

export class DiskReserve {
  readonly #path: string;
  #held = false;
  #triedAt = 0;

  constructor(path: string) {
    this.#path = path;
    this.#write();
  }

  /** Frees the reserve's room; false when there was none to free. */
  release(): boolean {
    if (!this.#held) return false;
    this.#held = false;
    this.#triedAt = Date.now();
    try {
      unlinkSync(this.#path);
    } catch {
      // Already gone: the room is free either way.
    }
    return true;
  }

  /** After a write that succeeded: takes the room back if it was released a while ago. */
  refill(): void {
    if (this.#held || Date.now() - this.#triedAt < RETRY_MS) return;
    this.#triedAt = Date.now();
    this.#write();
  }

  /** Written out (not sparse) so the blocks are really taken; a partial file on ENOSPC is removed. */
  #write(): void {
    let fd: number | undefined;
    try {
      fd = openSync(this.#path, 'w', 0o600);
      const block = Buffer.alloc(64 * 1024);
      for (let at = 0; at < RESERVE_BYTES; at += block.length) writeSync(fd, block);
      this.#held = true;
    } catch {
      this.#held = false;
      try {
        unlinkSync(this.#path);
      } catch {
        // Nothing was created.
      }
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
}
