/** What the operator interface is built from: everything is passed in, nothing is global. */
import type { Clock } from '../clock.ts';
import type { Config } from '../config/config.ts';
import type { Metrics } from '../metrics/metrics.ts';
import type { FormFields } from '../http/form.ts';
import type { LinkBuilder } from '../link/link_builder.ts';
import type { Logger } from '../log/logger.ts';
import type { OidcClient } from '../oidc/client.ts';
import type { SelfTest } from '../selftest/selftest.ts';
import type { OidcStateCodec } from '../session/oidc_state.ts';
import type { Session, SessionCodec } from '../session/session.ts';
import type { Store } from '../store/store.ts';
import type { Throttle } from '../throttle/throttle.ts';

/** What the interface takes from Paddock's configuration as it is. */
const passedOn = [
  'adminUser',
  'baseUrl',
  'secure',
  'controlUrl',
  'serverName',
  'version',
  'sessionTtlSeconds',
  'enrollTokenTtlSeconds',
  'staleAfterMs',
  'onlineWithinMs',
  'accountSignInMaxAgeMs',
  'metricsToken',
  'retentionFullMs',
  'retentionRedactedMs',
  'retentionMinimalMs',
  'webhookAllowPrivate',
  'scimUserClaim',
  'scimRequired',
  'scimHandOverTo',
] as const satisfies ReadonlyArray<keyof Config>;

/** The specification's "Configuration of the interface", plus lifetimes from docs/contract.md section 3. */
export interface InterfaceConfig extends Pick<Config, (typeof passedOn)[number]> {
  clientId: string;
  clientSecret: string;
  adminGroup: string | undefined;
  groupsClaim: string;
  oidcEnabled: boolean;
  /** The configured keys, or the one generated and kept in the store. */
  sessionKeys: Buffer[];
}

/** The one mapping from Paddock's configuration, so `paddock serve` and the tests build the same. */
export function interfaceConfig(config: Config, sessionKeys: Buffer[]): InterfaceConfig {
  const { oidc } = config;
  return {
    ...(Object.fromEntries(passedOn.map((name) => [name, config[name]])) as Pick<Config, (typeof passedOn)[number]>),
    clientId: oidc.clientId,
    clientSecret: oidc.clientSecret,
    adminGroup: oidc.adminGroup,
    groupsClaim: oidc.groupsClaim,
    oidcEnabled: oidc.enabled,
    sessionKeys,
  };
}

export interface InterfaceDeps {
  config: InterfaceConfig;
  store: Store;
  linkBuilder: LinkBuilder;
  throttle: Throttle;
  /** Absent when no provider is configured. */
  oidc: OidcClient | undefined;
  selfTest: SelfTest;
  logger: Logger;
  clock: Clock;
  /** Prometheus metrics (docs/contract.md section 11): GET /metrics answers 404 without them. */
  metrics?: Metrics | undefined;
  /** The key webhook secrets are sealed with (webhooks/key.ts): the webhook pages answer 404 without it. */
  webhookSealKey?: Buffer | undefined;
}

/** Deps plus what the factory derives from them once. */
export interface Ctx extends InterfaceDeps {
  sessions: SessionCodec;
  /** Sign-in states that prove their issue here (docs/contract.md section 23), under the session keys. */
  oidcStates: OidcStateCodec;
  /** The specification's rule: the verifier exists, is enabled, and BaseURL is non-empty. */
  oidcAvailable: boolean;
  redirectUri: string;
  /** Runs a password hash with at most two at once per process (docs/contract.md section 5). */
  hashSlot: <T>(task: () => Promise<T>) => Promise<T>;
}

export type UiEnv = {
  Variables: {
    session: Session;
    /** The session's account's groups, read by the guard on each request (docs/contract.md section 19). */
    groups: readonly string[];
    form: FormFields;
  };
};
