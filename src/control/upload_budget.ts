/**
 * The memory that run uploads may hold at once, shared fairly by devices: uploads are held whole
 * until stored (a run is stored byte for byte and compared with the same id's bytes first), so the
 * bytes held are counted as they are read, against a total for the process and a share for each
 * device. One device, even a compromised or very slow one, cannot hold what the others need.
 */
import { MIN_BODY_RATE, type MinRate } from '../http/body.ts';

export interface UploadLimits {
  /** Bytes held by all uploads together. */
  totalBytes: number;
  /** Bytes held by the uploads of one device. */
  deviceBytes: number;
  /** Uploads of one device at once. */
  deviceUploads: number;
  /**
   * A sender must keep up this rate on average after a grace period, or the upload is cut off
   * (408): a body sent a byte a minute would otherwise hold its memory and connection for minutes.
   * Stricter than every body's rule (http/body.ts), which is its floor.
   */
  minRate: MinRate;
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  totalBytes: 128 * 1024 * 1024,
  deviceBytes: 32 * 1024 * 1024,
  deviceUploads: 4,
  minRate: { graceMs: MIN_BODY_RATE.graceMs, bytesPerSecond: 8 * 1024 },
};

/**
 * What refused an upload or its bytes: its own device's share (the device sends too much at once:
 * 429, its own excess) or the process's total (the instance is busy for everyone: 503).
 */
export type Refusal = 'device' | 'process';

/** One upload's share: bytes are taken as they arrive and all given back by release(). */
export interface UploadTicket {
  /** Undefined when the bytes are taken; otherwise what refused them (nothing is taken). */
  take(bytes: number): Refusal | undefined;
  release(): void;
}

export function uploadBudget(limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {
  let held = 0;
  const devices = new Map<string, { bytes: number; uploads: number }>();

  /** A ticket for one upload of `device`, or 'device' when that device has too many in progress. */
  return function begin(device: string): UploadTicket | 'device' {
    const mine = devices.get(device) ?? { bytes: 0, uploads: 0 };
    if (mine.uploads >= limits.deviceUploads) return 'device';
    mine.uploads++;
    devices.set(device, mine);
    let taken = 0;
    let released = false;
    return {
      take(bytes) {
        // The device's own share first: bytes that would pass it are that device's excess even
        // when the process is full too, and waiting for the others would not make them fit.
        if (mine.bytes + bytes > limits.deviceBytes) return 'device';
        if (held + bytes > limits.totalBytes) return 'process';
        held += bytes;
        mine.bytes += bytes;
        taken += bytes;
        return undefined;
      },
      release() {
        if (released) return;
        released = true;
        held -= taken;
        mine.bytes -= taken;
        if (--mine.uploads === 0) devices.delete(device);
      },
    };
  };
}
