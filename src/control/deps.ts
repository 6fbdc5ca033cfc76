/** What the control app's handlers are built from (docs/contract.md section 6). */
import type { Clock } from '../clock.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Store } from '../store/store.ts';
import type { LevelCheck } from './level_check.ts';
import type { UploadLimits } from './upload_budget.ts';
import type { RequestHub } from '../collections/hub.ts';
import type { CredentialRules } from '../domain/credentials.ts';

export interface ControlDeps {
  store: Store;
  logger: Logger;
  clock: Clock;
  /** The memory run uploads may hold, in all and per device (DEFAULT_UPLOAD_LIMITS by default). */
  uploadLimits?: UploadLimits | undefined;
  /** PADDOCK_DEVICE_QUOTA: the bytes a device may hold; undefined for no quota. */
  deviceQuotaBytes?: number | undefined;
  /** Prometheus metrics (docs/contract.md section 11); none when absent. */
  metrics?: Metrics | undefined;
  /** Checks each redacted or minimal run as it is stored (docs/contract.md section 10); none when absent. */
  levelCheck?: LevelCheck | undefined;
  /** Held requests (docs/contract.md section 15): the server's, drained at SIGTERM; the app makes one when absent. */
  requests?: RequestHub | undefined;
  /**
   * The control key's pins as they are now, current first (docs/contract.md section 16): GET /v1/pins
   * and every answer's Paddock-Pins. Absent (an app built without a control key): neither.
   */
  pins?: (() => readonly string[]) | undefined;
  /**
   * PADDOCK_CREDENTIAL_ROTATE_AFTER and PADDOCK_CREDENTIAL_MAX_AGE (docs/contract.md section 16);
   * absent: rotation asked after 30 days, credentials never expire.
   */
  credentialRules?: CredentialRules | undefined;
}
