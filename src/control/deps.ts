/** What the control app's handlers are built from (docs/contract.md section 6). */
import type { Clock } from '../clock.ts';
import type { Logger } from '../log/logger.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { Store } from '../store/store.ts';
import type { LevelCheck } from './level_check.ts';
import type { UploadLimits } from './upload_budget.ts';
import type { RequestHub } from '../collections/hub.ts';

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
}
