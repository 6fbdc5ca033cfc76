/**
 * The schemas of the API's OpenAPI document (api/openapi.ts): each resource and request body as
 * JSON Schema 2020-12, built from the same constants the parsers use, closed to extra fields.
 */
import { APPROVALS, EXPIRES_IN_MAX, EXPIRES_IN_MIN, NOTE_MAX, USES_MAX, USES_MIN } from '../domain/enroll_tokens.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import { AROUND } from '../domain/run_match.ts';
import { DEVICE_STATUSES } from '../domain/devices.ts';
import {
  ACCESS_EXPIRES_IN_DEFAULT,
  ACCESS_EXPIRES_IN_MAX,
  ACCESS_EXPIRES_IN_MIN,
  TOKEN_SCOPE_DEFAULT,
  TOKEN_SCOPES,
} from '../domain/access_tokens.ts';
import { LABEL_KEY, LABEL_VALUE, MAX_LABELS } from '../domain/labels.ts';
import { FACT_VALUE_MAX, MAX_FACTS } from '../domain/facts.ts';
import { LIST_MAX } from './json_body.ts';
import { WEBHOOK_EVENTS } from '../events/catalogue.ts';
import { ATTEMPT_FAILURES } from '../webhooks/outcome.ts';
import {
  COLLECTION_ID,
  EXPIRES_IN as COLLECTION_EXPIRES_IN,
  MAX_NAMED_DEVICES,
  REQUEST_ID,
  SKIP_REASONS,
  TARGET_STATES,
} from '../domain/collections.ts';
import { DEVICE_ID } from '../domain/ids.ts';
import { COLLECTION_FILTER } from './collection_body.ts';

const OPT_IN = WEBHOOK_EVENTS.filter((e) => e.webhook === 'opt-in')
  .map((e) => `\`${e.name}\``)
  .join(', ');
const FAILURE_CLASSES = ATTEMPT_FAILURES.map((c) => `\`${c}\``).join(', ');

const time = { type: ['string', 'null'], format: 'date-time' } as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A label key (docs/contract.md section 12), as the parsers check it. */
const labelKey = { type: 'string', pattern: LABEL_KEY.source } as const;
const listed = (values: readonly string[]) => values.map((v) => `\`${v}\``).join(', ');

/** A collection's filter: the device list's own parameters (lists/devices.ts), as body fields. */
const collectionFilter = Object.fromEntries(
  Object.entries(COLLECTION_FILTER.parameters).map(([name, p]) => [
    name,
    'repeat' in p
      ? { type: 'array', items: p.kind.schema, maxItems: p.repeat.max, description: p.about }
      : { ...p.kind.schema, description: p.about },
  ]),
);

export const SCHEMAS = {
  Device: {
    type: 'object',
    additionalProperties: false,
    required: [
      'id',
      'name',
      'owner',
      'status',
      'pending_reason',
      'enrolled_at',
      'enrolled_from',
      'last_seen_at',
      'last_upload_at',
      'revoked_at',
      'max_privacy',
      'labels',
      'facts',
      'facts_reported_at',
    ],
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      owner: {
        type: 'string',
        description:
          'An account subject (local:<username>, oidc:<sub>) or group:<name>: a group owns a device for its members (docs/contract.md section 19)',
      },
      status: { enum: DEVICE_STATUSES },
      pending_reason: {
        type: ['string', 'null'],
        description:
          "Why a pending device waits, when not since its enrollment: 'credential reused' (a credential a rotation replaced was presented again); null otherwise",
      },
      enrolled_at: { type: 'string', format: 'date-time' },
      enrolled_from: {
        type: ['string', 'null'],
        description:
          'The client address it enrolled from (IPv4 or IPv6, as the server saw it); null for a device enrolled before it was kept',
      },
      last_seen_at: time,
      last_upload_at: time,
      revoked_at: time,
      max_privacy: { enum: PRIVACY_LEVELS },
      labels: ref('Labels'),
      facts: ref('Facts'),
      facts_reported_at: { ...time, description: 'when the device last reported its facts; null when never' },
    },
  },
  Facts: {
    type: 'object',
    description: `What the device last reported about itself (PUT /v1/device/facts), key to value: at most ${MAX_FACTS}; empty when it never reported`,
    maxProperties: MAX_FACTS,
    propertyNames: labelKey,
    additionalProperties: { type: 'string', maxLength: FACT_VALUE_MAX },
  },
  Labels: {
    type: 'object',
    description: `Labels, key to value: at most ${MAX_LABELS}, one value per key`,
    maxProperties: MAX_LABELS,
    propertyNames: labelKey,
    additionalProperties: { type: 'string', pattern: LABEL_VALUE.source },
  },
  LabelChange: {
    type: 'object',
    additionalProperties: false,
    description:
      'Labels to set (added, or given a new value) and keys to remove; the others stay. A key may not be both set and removed',
    properties: {
      set: ref('Labels'),
      remove: { type: 'array', items: labelKey, uniqueItems: true },
    },
  },
  Run: {
    type: 'object',
    additionalProperties: false,
    required: ['device', 'id', 'content_type', 'privacy', 'size', 'uploaded_at', 'flagged'],
    properties: {
      device: { type: 'string' },
      id: { type: 'string' },
      content_type: { type: 'string' },
      privacy: { enum: PRIVACY_LEVELS },
      size: { type: 'integer', minimum: 0 },
      uploaded_at: { type: 'string', format: 'date-time' },
      flagged: { type: 'boolean' },
      match: {
        type: 'object',
        additionalProperties: false,
        required: ['line', 'text'],
        description: `Only in the answer of a search (\`text\`): the run's first line holding a word or phrase searched for; a long line is cut to ${AROUND} characters on each side of its first match, with … where it was cut`,
        properties: {
          line: { type: 'integer', minimum: 1, description: 'Its number, from 1' },
          text: { type: 'string' },
        },
      },
    },
  },
  Rename: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 128 } },
  },
  HandOver: {
    type: 'object',
    additionalProperties: false,
    required: ['owner'],
    properties: {
      owner: {
        type: 'string',
        minLength: 1,
        maxLength: 262,
        description: 'An account subject (local:<username>, oidc:<sub>) or group:<name>',
      },
    },
  },
  Mint: {
    type: 'object',
    additionalProperties: false,
    description:
      'Every field is optional: the owner defaults to the caller, uses to 1, expires_in to PADDOCK_ENROLL_TOKEN_TTL',
    properties: {
      owner: {
        type: 'string',
        maxLength: 262,
        description:
          'An account subject or group:<name> (docs/contract.md section 19): the devices the token enrolls belong to it; empty or absent: the caller. Anything else is a 400 problem naming it',
      },
      expires_in: { type: 'integer', minimum: EXPIRES_IN_MIN, maximum: EXPIRES_IN_MAX },
      uses: { type: 'integer', minimum: USES_MIN, maximum: USES_MAX },
      name: { type: 'string', maxLength: 128, description: 'empty: the device names itself' },
      note: { type: 'string', maxLength: NOTE_MAX },
      max_privacy: { enum: PRIVACY_LEVELS },
      labels: { ...ref('Labels'), description: 'every device the token enrolls starts with these' },
      approval: {
        enum: APPROVALS,
        description: '`required`: the devices it enrolls are `pending` until an administrator approves them',
      },
    },
  },
  Minted: {
    type: 'object',
    additionalProperties: false,
    required: ['token', 'link'],
    properties: { token: ref('EnrollToken'), link: { type: 'string', format: 'uri' } },
  },
  EnrollToken: {
    type: 'object',
    additionalProperties: false,
    required: [
      'id',
      'owner',
      'created_by',
      'created_at',
      'expires_at',
      'uses',
      'uses_left',
      'name',
      'note',
      'max_privacy',
      'labels',
      'approval',
    ],
    properties: {
      id: { type: 'string' },
      owner: {
        type: 'string',
        description:
          'An account subject (local:<username>, oidc:<sub>) or group:<name>: a group owns a device for its members (docs/contract.md section 19)',
      },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      expires_at: { type: 'string', format: 'date-time' },
      uses: { type: 'integer', minimum: USES_MIN },
      uses_left: { type: 'integer', minimum: 0 },
      name: { type: 'string' },
      note: { type: 'string' },
      max_privacy: { enum: PRIVACY_LEVELS },
      labels: ref('Labels'),
      approval: { enum: APPROVALS },
    },
  },
  AuditRecord: {
    type: 'object',
    additionalProperties: false,
    required: ['time', 'event', 'account', 'client', 'device', 'run', 'detail'],
    properties: {
      time: { type: 'string', format: 'date-time' },
      event: { type: 'string' },
      account: { type: ['string', 'null'], description: '`system` for automatic actions' },
      client: { type: ['string', 'null'] },
      device: { type: ['string', 'null'] },
      run: { type: ['string', 'null'] },
      detail: { type: 'string' },
    },
  },
  Account: {
    type: 'object',
    additionalProperties: false,
    required: ['subject', 'display', 'last_sign_in_at', 'admin', 'disabled_at', 'devices', 'runs'],
    properties: {
      subject: { type: 'string' },
      display: { type: 'string' },
      last_sign_in_at: { type: 'string', format: 'date-time' },
      admin: { type: 'boolean', description: 'The admin flag its latest sign-in gave; its tokens act with it' },
      disabled_at: {
        type: ['string', 'null'],
        format: 'date-time',
        description: 'When it was disabled (its sessions, tokens and sign-in refused); null when it is not',
      },
      devices: { type: 'integer', minimum: 0 },
      runs: { type: 'integer', minimum: 0 },
    },
  },
  AccessToken: {
    type: 'object',
    description: 'A personal access token of the account: never the token itself',
    additionalProperties: false,
    required: [
      'id',
      'name',
      'scope',
      'created_at',
      'expires_at',
      'last_used_at',
      'last_used_client',
      'revoked_at',
      'state',
    ],
    properties: {
      id: { type: 'string', description: 'Its public id (a_…)' },
      name: { type: 'string' },
      scope: {
        type: 'string',
        enum: [...TOKEN_SCOPES],
        description: '`read` is refused (403) on every request that would change something',
      },
      created_at: { type: 'string', format: 'date-time' },
      expires_at: { type: 'string', format: 'date-time' },
      last_used_at: { type: ['string', 'null'], format: 'date-time' },
      last_used_client: { type: ['string', 'null'] },
      revoked_at: { type: ['string', 'null'], format: 'date-time' },
      state: { type: 'string', enum: ['active', 'expired', 'revoked'] },
    },
  },
  CreateToken: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 64 },
      expires_in: {
        type: 'integer',
        minimum: ACCESS_EXPIRES_IN_MIN,
        maximum: ACCESS_EXPIRES_IN_MAX,
        default: ACCESS_EXPIRES_IN_DEFAULT,
        description: 'Seconds',
      },
      scope: {
        type: 'string',
        enum: [...TOKEN_SCOPES],
        default: TOKEN_SCOPE_DEFAULT,
        description:
          'read: no change; write: what the account may; scim: an administrator only, for the identity provider at /scim/v2 (SCIM 2.0, RFC 7644, outside this document), refused here',
      },
    },
  },
  CreatedToken: {
    type: 'object',
    additionalProperties: false,
    required: ['token', 'value'],
    properties: {
      token: { $ref: '#/components/schemas/AccessToken' },
      value: { type: 'string', description: 'The token (pdk_…): shown only here, stored only as a hash' },
    },
  },
  Webhook: {
    type: 'object',
    additionalProperties: false,
    required: [
      'id',
      'url',
      'events',
      'description',
      'enabled',
      'created_at',
      'created_by',
      'rotated_at',
      'failures',
      'failing_since',
      'last_attempt_at',
      'last_outcome',
    ],
    properties: {
      id: { type: 'string' },
      url: { type: 'string', format: 'uri' },
      events: { type: 'array', items: { type: 'string' }, description: '`*`: every event but the opt-in ones' },
      description: { type: 'string' },
      enabled: { type: 'boolean' },
      created_at: { type: 'string', format: 'date-time' },
      created_by: { type: 'string' },
      rotated_at: time,
      failures: { type: 'integer', minimum: 0, description: 'Failed attempts in a row' },
      failing_since: time,
      last_attempt_at: time,
      last_outcome: {
        type: ['string', 'null'],
        description: `The last attempt's status code, or the class of its failure (${FAILURE_CLASSES})`,
      },
    },
  },
  WebhookAttempt: {
    type: 'object',
    additionalProperties: false,
    required: ['delivery', 'message', 'event', 'at', 'status_code', 'error', 'duration_ms', 'status'],
    properties: {
      delivery: { type: 'integer', minimum: 1, description: 'Pass as `delivery` to redeliver' },
      message: { type: 'string', description: 'The `webhook-id` the receiver saw' },
      event: { type: 'string' },
      at: { type: 'string', format: 'date-time' },
      status_code: { type: ['integer', 'null'], description: 'The status code of an answer; null when none came' },
      error: {
        enum: [...ATTEMPT_FAILURES, null],
        description:
          'Why no answer came, as a class only: the detail and the exact time stay in the server log, so the API is no port scanner',
      },
      duration_ms: {
        type: ['integer', 'null'],
        minimum: 0,
        description: "An answer's duration to two significant figures; null for a failed attempt",
      },
      status: { enum: ['pending', 'delivered', 'failed'], description: "The delivery's status now" },
    },
  },
  WebhookWithAttempts: {
    type: 'object',
    additionalProperties: false,
    required: ['webhook', 'attempts'],
    properties: { webhook: ref('Webhook'), attempts: { type: 'array', items: ref('WebhookAttempt') } },
  },
  NewWebhook: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'events'],
    properties: {
      url: {
        type: 'string',
        maxLength: 2048,
        description: 'https:// (http:// too with PADDOCK_WEBHOOK_ALLOW_PRIVATE)',
      },
      events: {
        type: 'array',
        minItems: 1,
        maxItems: LIST_MAX,
        items: { type: 'string' },
        description: `Event names webhooks carry, or \`*\` for all but the opt-in ones (${OPT_IN})`,
      },
      description: { type: 'string', maxLength: 200 },
    },
  },
  WebhookSecret: {
    type: 'object',
    additionalProperties: false,
    required: ['secret'],
    properties: { secret: { type: 'string', pattern: '^whsec_', description: 'Shown only in this answer' } },
  },
  CreatedWebhook: {
    type: 'object',
    additionalProperties: false,
    required: ['webhook', 'secret'],
    properties: {
      webhook: ref('Webhook'),
      secret: { type: 'string', pattern: '^whsec_', description: 'Shown only in this answer' },
    },
  },
  Collection: {
    type: 'object',
    description: 'An ask for a run, to the devices it reached (its targets), with their counts by state',
    additionalProperties: false,
    required: [
      'id',
      'created_by',
      'created_at',
      'privacy',
      'reason',
      'expires_at',
      'open',
      'closed_at',
      'cancelled_at',
      'counts',
    ],
    properties: {
      id: { type: 'string', pattern: COLLECTION_ID.source },
      created_by: { type: 'string' },
      created_at: { type: 'string', format: 'date-time' },
      privacy: { enum: PRIVACY_LEVELS, description: 'The level asked: a device answers at it or a more private one' },
      reason: { type: 'string', description: 'Shown to the device, which may show it to its user' },
      expires_at: { type: 'string', format: 'date-time' },
      open: { type: 'boolean', description: 'Some target is still `pending` or `delivered`' },
      closed_at: { ...time, description: 'When its last open target was answered, expired or cancelled' },
      cancelled_at: { ...time, description: 'When an operator cancelled it' },
      counts: ref('TargetCounts'),
    },
  },
  TargetCounts: {
    type: 'object',
    description: 'Its targets by state, every state present; `pending` and `delivered` are open',
    additionalProperties: false,
    required: [...TARGET_STATES],
    properties: Object.fromEntries(TARGET_STATES.map((s) => [s, { type: 'integer', minimum: 0 }])),
  },
  CollectionTarget: {
    type: 'object',
    description: 'One device a collection reached',
    additionalProperties: false,
    required: ['request', 'device', 'device_name', 'state', 'since', 'run', 'reason', 'stderr'],
    properties: {
      request: { type: 'string', pattern: REQUEST_ID.source, description: 'The request id the device sees' },
      device: { type: 'string' },
      device_name: { type: 'string' },
      state: { enum: TARGET_STATES },
      since: { type: 'string', format: 'date-time', description: 'When it entered its state' },
      run: { type: ['string', 'null'], description: 'The id of the run that fulfilled it' },
      reason: {
        type: ['string', 'null'],
        description: `Why it was declined (the device's words) or skipped (${listed(SKIP_REASONS)})`,
      },
      stderr: {
        type: ['string', 'null'],
        description: "A declined target's: the end of the failed command's standard error that the device sent",
      },
    },
  },
  NewCollection: {
    type: 'object',
    description:
      'Either `devices` or `filter`. An account that is not an administrator reaches only its own devices: others are neither named nor counted',
    additionalProperties: false,
    required: ['privacy', 'reason'],
    oneOf: [
      { type: 'object', required: ['devices'] },
      { type: 'object', required: ['filter'] },
    ],
    properties: {
      devices: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_NAMED_DEVICES,
        items: { type: 'string', pattern: DEVICE_ID.source },
        description: 'Device ids',
      },
      filter: ref('CollectionFilter'),
      privacy: { enum: PRIVACY_LEVELS, description: 'The level asked of the devices' },
      reason: { type: 'string', minLength: 1, maxLength: 200, description: 'The device may show it to its user' },
      expires_in: {
        type: 'integer',
        minimum: COLLECTION_EXPIRES_IN.min,
        maximum: COLLECTION_EXPIRES_IN.max,
        default: COLLECTION_EXPIRES_IN.default,
        description: 'Seconds',
      },
    },
  },
  CollectionFilter: {
    type: 'object',
    description:
      "The device list's filters, all of which must hold; none at all reaches every device the account may see. A blank value is refused",
    additionalProperties: false,
    properties: collectionFilter,
  },
  Problem: {
    type: 'object',
    description: 'RFC 9457 problem details; `field` names the parameter at fault',
    required: ['type', 'title', 'status'],
    properties: {
      type: { type: 'string' },
      title: { type: 'string' },
      status: { type: 'integer' },
      detail: { type: 'string' },
      field: { type: 'string' },
    },
  },
} as const;
