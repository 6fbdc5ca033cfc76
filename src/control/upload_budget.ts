/**
 * The memory that run uploads may hold at once, shared fairly by devices: uploads are held whole
 * until stored (a run is stored byte for byte and compared with the same id's bytes first), so the
 * bytes held are counted as they are read, against a total for the process and a share for each
 * device. One device, even a compromised or very slow one, cannot hold what the others need.
 */
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
   */
  minRate: { graceMs: number; bytesPerSecond: number };
}

export const DEFAULT_UPLOAD_LIMITS: UploadLimits = {
  totalBytes: 128 * 1024 * 1024,
  deviceBytes: 32 * 1024 * 1024,
  deviceUploads: 4,
  minRate: { graceMs: 10_000, bytesPerSecond: 8 * 1024 },
};

/** One upload's share: bytes are taken as they arrive and all given back by release(). */
export interface UploadTicket {
  take(bytes: number): boolean;
  release(): void;
}

export function uploadBudget(limits: UploadLimits = DEFAULT_UPLOAD_LIMITS) {
  let held = 0;
  const devices = new Map<string, { bytes: number; uploads: number }>();

  /** A ticket for one upload of `device`, or undefined when the device has too many in progress. */
  return function begin(device: string): UploadTicket | undefined {
    const mine = devices.get(device) ?? { bytes: 0, uploads: 0 };
    if (mine.uploads >= limits.deviceUploads) return undefined;
    mine.uploads++;
    devices.set(device, mine);
    let taken = 0;
    let released = false;
    return {
      take(bytes) {
        if (held + bytes > limits.totalBytes || mine.bytes + bytes > limits.deviceBytes) return false;
        held += bytes;
        mine.bytes += bytes;
        taken += bytes;
        return true;
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
