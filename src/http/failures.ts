/**
 * Every plain-text failure Paddock answers, by name: its status and message, written once. The
 * specification's Errors table gives the meaning of each body; the wording is ours. A handler
 * answers `fail(c, 'runNotFound')`, so a test, a log reader and a translator find them all here.
 */
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { RUN_ID_RULE } from '../domain/ids.ts';
import { OWNER_RULE } from '../domain/owners.ts';
import { APPROVAL_RULE, EXPIRES_IN_RULE, NOTE_RULE, USES_RULE } from '../domain/enroll_tokens.ts';
import { DEVICE_NAME_RULE } from '../domain/names.ts';
import { DEVICE_SORTS_TEXT, DEVICE_STATUSES_TEXT, SEEN_VALUES_TEXT } from '../domain/devices.ts';
import { MAX_LABEL_FILTERS } from '../domain/labels.ts';
import { MAX_FACT_FILTERS } from '../domain/facts.ts';
import {
  ACCESS_EXPIRES_IN_RULE,
  ACCESS_TOKEN_NAME_RULE,
  SCIM_SCOPE_RULE,
  TOKEN_SCOPE_RULE,
} from '../domain/access_tokens.ts';
import { PRIVACY_LEVELS_TEXT } from '../domain/privacy.ts';
import { MAX_QUERY } from '../domain/words.ts';
import { RECEIPT_RULE } from '../domain/receipt.ts';
import {
  COLLECTION_REASON_RULE,
  COLLECTION_STATES,
  DECLINE_STDERR_RULE,
  EXPIRES_IN_RULE as COLLECTION_EXPIRES_IN_RULE,
  MAX_NAMED_DEVICES,
  MAX_TARGETS,
  MAX_WAIT_S,
  TARGET_STATES,
} from '../domain/collections.ts';
import type { ListFailure } from '../lists/parameters.ts';
import { applySecurityHeaders } from './security_headers.ts';

interface Failure {
  status: ContentfulStatusCode;
  message: string;
}

export const FAILURES = {
  // Any route (http/router.ts, server/*).
  badRequest: { status: 400, message: 'bad request' },
  requestTimeout: { status: 408, message: 'request timeout' },
  headersTooLarge: { status: 431, message: 'request headers too large' },
  expectationFailed: { status: 417, message: 'expectation not supported' },
  notFound: { status: 404, message: 'not found' },
  methodNotAllowed: { status: 405, message: 'method not allowed' },
  misdirected: {
    status: 421,
    message: 'misdirected request: this host name is not served with this certificate',
  },
  internal: { status: 500, message: 'internal error' },
  storeUnavailable: { status: 503, message: 'the store is unavailable; try again shortly' },
  storeFull: { status: 507, message: "the server's storage is full; try again later" },
  starting: { status: 503, message: 'starting; try again shortly' },
  // docs/contract.md section 23: one client address's bodies in flight on the routes open without a credential.
  openBodiesBusy: {
    status: 429,
    message: 'too many requests with a body in flight from this address (enrollment or sign-in); retry shortly',
  },

  // Forms and the guard (specification, Endpoints and Errors).
  badForm: { status: 400, message: 'bad form' },
  formTooLarge: { status: 413, message: 'form too large' },
  staleForm: { status: 403, message: 'stale form: reload the page and retry' },
  adminOnly: { status: 403, message: 'this action needs an administrator account' },
  badCursor: { status: 400, message: 'bad page cursor' },

  // The fleet console's lists and actions (docs/contract.md section 9).
  repeatedParameter: { status: 400, message: 'a query parameter is given more than once' },
  badSearch: { status: 400, message: 'q must be 3 to 128 printable characters' },
  badStatus: { status: 400, message: `status must be ${DEVICE_STATUSES_TEXT}` },
  badSort: { status: 400, message: `sort must be ${DEVICE_SORTS_TEXT}` },
  // Silent devices (docs/contract.md section 22).
  badSeenFilter: { status: 400, message: `seen must be ${SEEN_VALUES_TEXT}` },
  badDeviceFilter: { status: 400, message: 'device must be a device id' },
  badPrivacyFilter: { status: 400, message: `privacy must be ${PRIVACY_LEVELS_TEXT}` },
  badDate: { status: 400, message: 'since and until must be days written YYYY-MM-DD (UTC)' },
  badDateRange: { status: 400, message: 'since must be a day before or equal to until' },
  // Searching across runs (docs/contract.md section 21): the detail says which rule the text broke.
  badTextSearch: {
    status: 400,
    message: `text must be 1 to ${MAX_QUERY} characters holding a letter or digit, with its quotes in pairs`,
  },
  // Labels (docs/contract.md section 12): the detail names the label at fault and its rule.
  badLabelFilter: { status: 400, message: 'label must be key=value or key' },
  tooManyLabelFilters: { status: 400, message: `label may be given at most ${MAX_LABEL_FILTERS} times` },
  badLabels: { status: 400, message: 'labels refused, nothing changed' },
  // Facts (docs/contract.md section 16): the detail names the fact at fault and its rule.
  badFacts: { status: 400, message: 'facts refused, nothing changed' },
  badFactFilter: { status: 400, message: 'fact must be key=value' },
  tooManyFactFilters: { status: 400, message: `fact may be given at most ${MAX_FACT_FILTERS} times` },
  badBulkAction: {
    status: 400,
    message:
      'action must be one the form offers (devices: approve, reject, revoke, delete, label, unlabel or owner; runs: delete)',
  },
  noneSelected: { status: 400, message: 'select at least one item' },
  deviceNotRevoked: { status: 409, message: 'revoke the device before deleting it' },
  // Approval (docs/contract.md section 16).
  deviceNotPending: { status: 409, message: 'the device is not waiting for approval: nothing changed' },
  badOwner: { status: 400, message: OWNER_RULE },
  deviceNotFound: { status: 404, message: 'device not found' },
  runNotFound: { status: 404, message: 'run not found' },

  // Sign-in (specification, Errors; docs/contract.md section 5).
  signInsWaiting: { status: 429, message: 'too many sign-in attempts are waiting; try again later' },
  oidcUnavailable: { status: 501, message: 'no identity provider configured' },
  providerUnreachable: { status: 502, message: 'identity provider unreachable' },
  signInNotStartedHere: {
    status: 400,
    message: 'sign-in did not start here: start it again from the sign-in page',
  },
  stateMismatch: { status: 400, message: 'state mismatch: start the sign-in again' },
  noCode: { status: 400, message: 'no code returned by the identity provider' },
  exchangeFailed: { status: 502, message: 'could not complete sign-in with the identity provider' },
  idTokenRejected: { status: 403, message: 'identity token not accepted' },

  // The break-glass account's second factor (docs/contract.md section 14).
  totpLocalOnly: {
    status: 403,
    message: 'the second factor is for the break-glass account: sign in with it to set one up',
  },
  totpAlreadyEnrolled: { status: 409, message: 'a second factor is already set up for this account' },
  totpNotEnrolled: { status: 409, message: 'no second factor is set up for this account' },

  // The control API (docs/contract.md section 6).
  requestTooLarge: { status: 413, message: 'request too large' },
  notJsonObject: { status: 400, message: 'body must be a JSON object' },
  tokenMissing: { status: 400, message: 'token must be a non-empty string' },
  badDeviceName: { status: 400, message: DEVICE_NAME_RULE },
  unknownEnrollToken: { status: 401, message: 'enrollment token unknown, used up, revoked or expired' },
  unknownCredential: { status: 401, message: 'unknown or revoked device credential' },
  // docs/contract.md section 16: credential rotation.
  credentialExpired: {
    status: 401,
    message:
      'this device credential has expired (older than PADDOCK_CREDENTIAL_MAX_AGE): the device must be enrolled again with a new enrollment link',
  },
  credentialReused: {
    status: 401,
    message:
      'this device credential was replaced by a rotation and presented again after its overlap: the device waits for an administrator (approve keeps the credential it holds now; reject revokes it)',
  },
  credentialBody: { status: 400, message: 'POST /v1/credential takes an empty body or {}' },
  rotateRevoked: { status: 409, message: 'this device is revoked: it has no credential to rotate' },
  // docs/contract.md section 16: every control call of a pending device but enrollment and its facts.
  awaitingApproval: {
    status: 403,
    message:
      "this device waits for an administrator's approval: nothing was stored (it may report its facts meanwhile)",
  },
  awaitingApprovalReused: {
    status: 403,
    message:
      "a credential this device's rotation replaced was presented again: the device waits for an administrator's approval, and nothing is stored",
  },
  badRunId: { status: 400, message: RUN_ID_RULE },
  badPrivacyLevel: { status: 400, message: `X-Privacy-Level must be ${PRIVACY_LEVELS_TEXT}` },
  metricsToken: { status: 401, message: 'GET /metrics needs Authorization: Bearer and the metrics token' },
  badReceipt: { status: 400, message: RECEIPT_RULE },
  quotaExceeded: {
    status: 507,
    message: "this device's storage quota is used up: nothing was stored; delete some of its runs first",
  },
  aboveCeiling: {
    status: 403,
    message:
      "privacy level above this device's ceiling (docs/contract.md section 10): upload at the ceiling or a more private level",
  },
  badContentType: { status: 400, message: 'bad Content-Type' },
  // One device past its own share of the upload budget (its uploads at once or their bytes), and
  // the process past its total: the first is that device's excess, the second the instance's.
  deviceUploadsBusy: { status: 429, message: 'this device has too many uploads in progress; retry shortly' },
  uploadsBusy: { status: 503, message: 'too many uploads in progress on this server; retry shortly' },
  runTooLarge: { status: 413, message: 'run larger than 16 MiB' },
  uploadInterrupted: { status: 400, message: 'upload interrupted' },
  uploadTooSlow: { status: 408, message: 'upload sent too slowly; retry' },
  runConflict: { status: 409, message: 'a different run with this id is already stored' },

  // Enrollment tokens (docs/contract.md section 9): the mint form's fields, and the tokens page.
  badExpiresIn: { status: 400, message: EXPIRES_IN_RULE },
  badUses: { status: 400, message: USES_RULE },
  badNote: { status: 400, message: NOTE_RULE },
  badMaxPrivacy: { status: 400, message: `max_privacy must be ${PRIVACY_LEVELS_TEXT}` },
  badApproval: { status: 400, message: APPROVAL_RULE },
  enrollTokenNotFound: { status: 404, message: 'enrollment token not found or no longer outstanding' },
  // The audit trail and accounts pages (docs/contract.md section 9): each bad query parameter by name.
  badAuditActor: {
    status: 400,
    message: `actor must be system, an account subject such as local:admin or oidc:<sub>, or device:<id>`,
  },
  badAuditEvent: { status: 400, message: 'event must be one of the audited events listed in the form' },
  badFlaggedFilter: { status: 400, message: 'flagged must be empty or yes' },
  badOwnerDisabledFilter: { status: 400, message: 'owner_disabled must be empty or yes' },
  badAccessTokenName: { status: 400, message: ACCESS_TOKEN_NAME_RULE },
  badAccessTokenExpiresIn: { status: 400, message: ACCESS_EXPIRES_IN_RULE },
  accessTokenNotFound: { status: 404, message: 'access token not found or already revoked' },
  badAccessTokenScope: { status: 400, message: TOKEN_SCOPE_RULE },
  scimTokenNotAdmin: { status: 403, message: SCIM_SCOPE_RULE },
  // Sessions and accounts (docs/contract.md section 14).
  sessionNotFound: { status: 404, message: 'session not found or already ended' },
  accountNotFound: { status: 404, message: 'account not found: it has never signed in' },
  // Groups (docs/contract.md section 19).
  groupNotFound: { status: 404, message: 'group not found: no account is in it and it owns no device' },
  breakGlassNotDisabled: {
    status: 409,
    message: 'the break-glass account cannot be disabled: it is the way in when the identity provider is down',
  },
  notProvisioned: {
    status: 403,
    message:
      'this account is not provisioned for Paddock: ask the administrator of your identity provider to assign you the application',
  },
  accountDisabled: {
    status: 403,
    message: 'this account is disabled: an administrator of this Paddock server can enable it',
  },
  // Webhook endpoints (docs/contract.md section 13): the add form's fields, and unknown ids.
  badWebhookUrl: { status: 400, message: 'url is not a webhook target' },
  badWebhookEvents: {
    status: 400,
    message: 'event must name events webhooks carry (those the form lists), or * for all of them',
  },
  badWebhookDescription: { status: 400, message: 'description is at most 200 characters on one line' },
  tooManyWebhooks: { status: 409, message: 'there are as many webhook endpoints as allowed: delete one first' },
  webhookNotFound: { status: 404, message: 'webhook endpoint not found' },
  deliveryNotFound: { status: 404, message: 'delivery not found for this webhook endpoint' },
  // Collection requests (docs/contract.md section 15): the ask's fields, the device's answers.
  badCollectionPrivacy: {
    status: 400,
    message: `privacy (the level asked of the devices) must be ${PRIVACY_LEVELS_TEXT}`,
  },
  badCollectionReason: { status: 400, message: COLLECTION_REASON_RULE },
  badCollectionExpiresIn: { status: 400, message: COLLECTION_EXPIRES_IN_RULE },
  badCollectionDevices: { status: 400, message: 'device must name at least one device by its id' },
  tooManyNamedDevices: { status: 400, message: `device may be given at most ${MAX_NAMED_DEVICES} times` },
  tooManyTargets: {
    status: 400,
    message: `a collection reaches at most ${MAX_TARGETS} devices: narrow the filter`,
  },
  collectionNotFound: { status: 404, message: 'collection not found' },
  badCollectionState: { status: 400, message: `state must be ${COLLECTION_STATES.join(' or ')}` },
  badTargetState: { status: 400, message: `state must be one of ${TARGET_STATES.join(', ')}` },
  badWait: { status: 400, message: `wait must be whole seconds from 0 to ${MAX_WAIT_S}` },
  requestNotFound: { status: 404, message: 'request not found for this device' },
  requestNotOpen: {
    status: 409,
    message: 'this request is no longer open (fulfilled, declined, expired or cancelled)',
  },
  aboveRequest: {
    status: 403,
    message: 'privacy level more revealing than the request asked: upload at its level or a more private one',
  },
  /** X-Collection with a run id already stored at another level than X-Privacy-Level (issue 42). */
  runLevelDiffers: {
    status: 409,
    message: 'a run with this id is stored at another privacy level than X-Privacy-Level',
  },
  badCollectionHeader: { status: 400, message: 'X-Collection must be a request id such as r_123' },
  badDeclineReason: { status: 400, message: 'reason must be a string of at most 200 visible characters' },
  badDeclineStderr: { status: 400, message: DECLINE_STDERR_RULE },
  // Every failure a list's parameter can be (lists/parameters.ts) is one of these.
} as const satisfies Record<string, Failure> & Record<ListFailure, Failure>;

export type FailureName = keyof typeof FAILURES;

/** The body of a failure: its message, and `detail` after a colon when the cause is worth showing. */
export function failureText(name: FailureName, detail?: string): string {
  const { message } = FAILURES[name];
  return detail === undefined ? `${message}\n` : `${message}: ${detail}\n`;
}

/** Answers the named failure, plain text. */
export function fail(c: Context, name: FailureName, detail?: string): Response {
  return c.text(failureText(name, detail), FAILURES[name].status);
}

/** The named failure as a whole Response with the headers of every answer, for code outside Hono. */
export function failureResponse(name: FailureName, headers: Record<string, string> = {}): Response {
  const res = new Response(failureText(name), {
    status: FAILURES[name].status,
    headers: { 'Content-Type': 'text/plain; charset=UTF-8', ...headers },
  });
  applySecurityHeaders(res.headers);
  return res;
}
