/**
 * The API's OpenAPI 3.1 document (docs/contract.md section 11), served at /api/v1/openapi.json. Its schemas
 * are JSON Schema 2020-12, and the test suite validates every API response it makes against them
 * (test/api/openapi.test.ts), so the document cannot drift from what the server answers.
 */
import type { Handler } from 'hono';
import { AUDIT } from '../lists/audit.ts';
import { COLLECTION_TARGETS, COLLECTIONS } from '../lists/collections.ts';
import { DEVICES } from '../lists/devices.ts';
import { ACCESS_TOKENS, ACCOUNTS, ENROLL_TOKENS } from '../lists/pages.ts';
import type { Parameters } from '../lists/parameters.ts';
import { RUNS } from '../lists/runs.ts';
import { JSON_LIMIT } from './json_body.ts';
import { COLLECTION_BODY_LIMIT } from './collection_body.ts';
import { SCHEMAS } from './openapi_schemas.ts';
import { PAGE_SIZE } from '../domain/paging.ts';
import { MAX_LABELS } from '../domain/labels.ts';
import { COMPARE_LIMIT } from '../domain/run_diff.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { liveSession } from '../context/session_cookie.ts';
import { ATTEMPTS_SHOWN, MAX_WEBHOOKS } from '../actions/webhooks.ts';
import { version } from '../version.ts';
import { apiViewer } from './auth.ts';
import { EVENTS } from '../events/catalogue.ts';
import { MAX_NAMED_DEVICES, MAX_OPEN_PER_DEVICE, MAX_TARGETS } from '../domain/collections.ts';

const problem = { $ref: '#/components/schemas/Problem' } as const;
const query = (name: string, schema: object, description: string) => ({ name, in: 'query', schema, description });
/** A problem answer (RFC 9457) with this description. */
const failure = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problem } },
});
const errors = {
  '400': failure('A bad, unknown or repeated parameter or body field'),
  '401': failure(
    'No valid access token, or its account is disabled or has not signed in within PADDOCK_ACCOUNT_SIGNIN_MAX_AGE',
  ),
} as const;
const device = { $ref: '#/components/schemas/Device' } as const;
const run = { $ref: '#/components/schemas/Run' } as const;
const notFound = { '404': failure('Not found, or outside the account scope') } as const;
const forbidden = {
  '403': failure('The account is not an administrator, or (on a change) the token has the `read` scope'),
} as const;
/** Every change answers 403 to a `read` token (docs/contract.md section 14). */
const readOnly = { '403': failure('The token has the `read` scope, which changes nothing') } as const;
const conflict = { '409': failure('The device is not revoked') } as const;
const notPending = { '409': failure('The device is not waiting for approval') } as const;
const bodyErrors = {
  '408': failure('A body that arrived too slowly'),
  '413': failure(`A body over ${JSON_LIMIT} bytes`),
  '415': failure('A body that is not application/json'),
} as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
/** A list's query parameters, as its declaration gives them (lists/). */
const listParameters = (list: { parameters: Parameters }) =>
  Object.entries(list.parameters).map(([name, p]) =>
    p.repeat === undefined
      ? query(name, p.kind.schema, p.about)
      : {
          ...query(name, { type: 'array', items: p.kind.schema, maxItems: p.repeat.max }, p.about),
          style: 'form',
          explode: true,
        },
  );
const id = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string' } });
const jsonBody = (schema: object) => ({ required: true, content: { 'application/json': { schema } } });
const page = (item: string) => ({
  type: 'object',
  required: ['items'],
  additionalProperties: false,
  properties: {
    items: { type: 'array', items: { $ref: `#/components/schemas/${item}` } },
    next: { type: 'string', description: 'Pass as `before` for the next page' },
  },
});

export const OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'Paddock API',
    version,
    description:
      "What the Paddock console does, as JSON: devices, runs, collection requests, enrollment tokens, the audit trail, accounts, access tokens and webhooks, with the same scoping and audit records. Requests carry a personal access token (`Authorization: Bearer pdk_…`), which acts with its account's admin flag as its latest sign-in set it; a token of the `read` scope is refused (403) on every request that would change something. Errors are RFC 9457 problem details that name the field at fault.",
    contact: { name: 'The administrators of this Paddock server' },
  },
  // Relative: the API is served by the server that serves this document, on the console's host.
  servers: [{ url: '/', description: 'This Paddock server' }],
  tags: [
    {
      name: 'Devices',
      description: 'Enrolled devices: list, view, rename, label, approve, reject, rotate, revoke and delete',
    },
    { name: 'Runs', description: 'Uploaded runs: list, describe, download and delete' },
    { name: 'Enrollment tokens', description: 'Single- or multi-use tokens that enroll devices (administrators)' },
    { name: 'Audit', description: 'The append-only audit trail (administrators)' },
    { name: 'Accounts', description: 'Accounts that have signed in (administrators)' },
    { name: 'Access tokens', description: "The account's own personal access tokens, with their scope" },
    { name: 'Webhooks', description: 'Endpoints that receive signed events, and their deliveries (administrators)' },
    { name: 'Collections', description: 'Asks for a run, to named devices or to every device a filter matches' },
    { name: 'Document', description: 'This OpenAPI document' },
  ],
  security: [{ token: [] }],
  paths: {
    '/api/v1/openapi.json': {
      get: {
        operationId: 'getDocument',
        summary: 'This document (also to a signed-in console session)',
        description:
          'The OpenAPI 3.1 document of this API, as served by this version of Paddock. Its schemas are JSON Schema 2020-12. A signed-in console session may read it too, without a token.',
        tags: ['Document'],
        responses: {
          '200': {
            description: 'The OpenAPI document',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          '401': errors['401'],
        },
      },
    },
    '/api/v1/devices': {
      get: {
        operationId: 'listDevices',
        summary: 'Devices the account may see, newest first unless sorted otherwise',
        description: `Lists the devices the account may see (administrators: all), filtered as in the console. A page holds at most ${PAGE_SIZE}; pass \`next\` as \`before\` for the following one.`,
        tags: ['Devices'],
        parameters: listParameters(DEVICES),
        responses: {
          '200': { description: 'A page of devices', content: { 'application/json': { schema: page('Device') } } },
          ...errors,
        },
      },
    },
    '/api/v1/devices/{id}': {
      get: {
        operationId: 'getDevice',
        summary: 'One device, if the account may see it',
        description:
          "One device, with its owner, status, enrollment and last activity. A device outside the account's scope is answered 404, as an unknown one.",
        tags: ['Devices'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'The device', content: { 'application/json': { schema: device } } },
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/devices/{id}/revoke': {
      post: {
        operationId: 'revokeDevice',
        summary: 'Revoke a device (administrators); revoking a revoked device changes nothing',
        description: `Revokes a device: its credential is refused from then on, on every instance, and its runs are kept. Audited as \`${EVENTS.deviceRevoked.name}\`.`,
        tags: ['Devices'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Revoked' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/devices/{id}/rotate': {
      post: {
        operationId: 'rotateDeviceCredential',
        summary: 'Ask a device to rotate its credential (administrators)',
        description: `The device's next answer from the control API carries \`Paddock-Rotate: credential\`, and the reference client then rotates (\`POST /v1/credential\`); the old credential keeps working until the new one is first used, or 10 minutes. Audited as \`${EVENTS.deviceRotationAsked.name}\`.`,
        tags: ['Devices'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '204': { description: 'Asked' },
          ...forbidden,
          ...notFound,
          '409': failure('The device is revoked: it has no credential to rotate'),
          ...errors,
        },
      },
    },
    '/api/v1/devices/{id}/approve': {
      post: {
        operationId: 'approveDevice',
        summary: 'Approve a device that waits for approval (administrators)',
        description: `A device enrolled with a token minted with \`approval\` \`required\` is \`pending\`: it may report its facts and nothing else. Once approved it may do what any device does. Audited as \`${EVENTS.deviceApproved.name}\`.`,
        tags: ['Devices'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Approved' }, ...forbidden, ...notFound, ...notPending, ...errors },
      },
    },
    '/api/v1/devices/{id}/reject': {
      post: {
        operationId: 'rejectDevice',
        summary: 'Reject a device that waits for approval (administrators): it is revoked',
        description: `Rejects a \`pending\` device: it is revoked, and its credential is refused from then on, on every instance. Audited as \`${EVENTS.deviceRejected.name}\`.`,
        tags: ['Devices'],
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: {
          '204': { description: 'Rejected and revoked' },
          ...forbidden,
          ...notFound,
          ...notPending,
          ...errors,
        },
      },
    },
    '/api/v1/runs/{device}/{id}': {
      delete: {
        operationId: 'deleteRun',
        summary: 'Delete a run the account may see',
        description: `Deletes one run the account may see. Audited as \`${EVENTS.runDeleted.name}\`; deleting a run that is already gone is answered 404.`,
        tags: ['Runs'],
        parameters: [
          { name: 'device', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        ],
        responses: { '204': { description: 'Deleted' }, ...readOnly, ...notFound, ...errors },
      },
      get: {
        operationId: 'getRun',
        summary: 'One run (its description; the bytes are at …/raw in the console), if the account may see it',
        description:
          'Describes one run: its device, privacy level, size, content type, upload time and level check. The bytes themselves are at the `raw` operation.',
        tags: ['Runs'],
        parameters: [
          { name: 'device', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        ],
        responses: {
          '200': { description: 'The run', content: { 'application/json': { schema: run } } },
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/runs': {
      get: {
        operationId: 'listRuns',
        summary: 'Runs the account may see, newest first',
        description: `Lists the runs the account may see, filtered by device, privacy level, days and level check. A page holds at most ${PAGE_SIZE}; pass \`next\` as \`before\` for the following one. With \`text\`, a search: the runs whose text holds every word (letters and digits, in any case) and every "quoted phrase" (its words in that order, within one line), each with \`match\`, its first matching line; a page may then hold fewer runs than it read, and \`next\` still leads to the older ones.`,
        tags: ['Runs'],
        parameters: listParameters(RUNS),
        responses: {
          '200': { description: 'A page of runs', content: { 'application/json': { schema: page('Run') } } },
          ...errors,
        },
      },
    },
    '/api/v1/devices/{id}/labels': {
      post: {
        operationId: 'labelDevice',
        summary: "Set and remove a device's labels (its owner or an administrator)",
        description: `Sets the labels of \`set\` (added, or given the new value) and removes the keys of \`remove\`; the device's other labels stay. A device has at most ${MAX_LABELS} labels. A bad label, a key both set and removed, a key given twice or a change past ${MAX_LABELS} is a 400 problem that names the label, and nothing changes. A change is audited as \`${EVENTS.deviceLabelled.name}\` with the keys changed.`,
        tags: ['Devices'],
        parameters: [id('id')],
        requestBody: jsonBody(ref('LabelChange')),
        responses: {
          '200': { description: 'The device with its labels', content: { 'application/json': { schema: device } } },
          ...notFound,
          ...errors,
          ...bodyErrors,
        },
      },
    },
    '/api/v1/devices/{id}/rename': {
      post: {
        operationId: 'renameDevice',
        summary: 'Rename a device (its owner or an administrator)',
        description: `Gives a device a new display name; its id never changes. Audited as \`${EVENTS.deviceRenamed.name}\`.`,
        tags: ['Devices'],
        parameters: [id('id')],
        requestBody: jsonBody(ref('Rename')),
        responses: {
          '200': { description: 'The renamed device', content: { 'application/json': { schema: device } } },
          ...readOnly,
          ...notFound,
          ...errors,
          ...bodyErrors,
        },
      },
    },
    '/api/v1/devices/{id}/owner': {
      post: {
        operationId: 'handOverDevice',
        summary: 'Hand a device and its runs over to another owner (administrators)',
        description: `Gives the device a new owner, an account subject or \`group:<name>\` (docs/contract.md section 19); its runs go with it, and the members of a group owner reach it from their next request. An owner that is neither is a 400 problem naming it; a device already that owner's is answered as it is, unchanged. Audited as \`${EVENTS.deviceOwnerChanged.name}\` with \`from\` and \`to\`.`,
        tags: ['Devices'],
        parameters: [id('id')],
        requestBody: jsonBody(ref('HandOver')),
        responses: {
          '200': { description: 'The device with its new owner', content: { 'application/json': { schema: device } } },
          ...forbidden,
          ...notFound,
          ...errors,
          ...bodyErrors,
        },
      },
    },
    '/api/v1/devices/{id}/delete': {
      post: {
        operationId: 'deleteDevice',
        summary: 'Delete a revoked device and its runs (administrators)',
        description: `Deletes a device that is already revoked, with all of its runs. Audited as \`${EVENTS.deviceDeleted.name}\`.`,
        tags: ['Devices'],
        parameters: [id('id')],
        responses: { '204': { description: 'Deleted' }, ...forbidden, ...notFound, ...conflict, ...errors },
      },
    },
    '/api/v1/enroll-tokens': {
      get: {
        operationId: 'listEnrollTokens',
        summary: 'Outstanding enrollment tokens, newest first (administrators)',
        description:
          'Lists the enrollment tokens that can still enroll a device, with their uses left and expiry. The tokens themselves are never shown again.',
        tags: ['Enrollment tokens'],
        parameters: listParameters(ENROLL_TOKENS),
        responses: {
          '200': {
            description: 'A page of tokens',
            content: { 'application/json': { schema: page('EnrollToken') } },
          },
          ...forbidden,
          ...errors,
        },
      },
      post: {
        operationId: 'mintEnrollToken',
        summary: 'Mint an enrollment token (administrators); the link holds the token and is shown only here',
        description: `Mints an enrollment token with a lifetime, a number of uses, a device name, a note and a privacy ceiling. The answer holds the enrollment link for the device client; it is shown only here. Audited as \`${EVENTS.enrollTokenMinted.name}\`.`,
        tags: ['Enrollment tokens'],
        requestBody: jsonBody(ref('Mint')),
        responses: {
          '201': { description: 'Minted', content: { 'application/json': { schema: ref('Minted') } } },
          ...forbidden,
          ...errors,
          ...bodyErrors,
        },
      },
    },
    '/api/v1/enroll-tokens/{id}/revoke': {
      post: {
        operationId: 'revokeEnrollToken',
        summary: 'Revoke an outstanding enrollment token (administrators)',
        description: `Revokes an outstanding enrollment token, so it enrolls no further device. Audited as \`${EVENTS.enrollTokenRevoked.name}\`.`,
        tags: ['Enrollment tokens'],
        parameters: [id('id')],
        responses: { '204': { description: 'Revoked' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/runs/{device}/{id}/raw': {
      get: {
        operationId: 'downloadRun',
        summary: 'The bytes of a run exactly as uploaded',
        description: `Sends the run exactly as the device uploaded it, as an attachment that is never rendered. Audited as \`${EVENTS.runDownloaded.name}\`.`,
        tags: ['Runs'],
        parameters: [id('device'), id('id')],
        responses: {
          '200': {
            description: 'The stored bytes',
            content: {
              'application/octet-stream': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
            },
          },
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/runs/{device}/{id}/compare': {
      get: {
        operationId: 'compareRuns',
        summary: 'The unified diff of two runs, as `diff -u` writes it',
        description: `Compares the path's run (the old side, \`---\`) with the run \`with\` names (the new side, \`+++\`), line by line, and answers the unified diff with 3 lines of context in the format of \`diff -u\`, which \`patch\` applies to the old run's bytes to make the new run's exactly. Runs that are the same answer an empty body. Both runs must be text (UTF-8) of at most ${COMPARE_LIMIT} bytes. Either run missing or outside the account's scope is a 404. Not audited, as reading a run's description is not.`,
        tags: ['Runs'],
        parameters: [
          id('device'),
          id('id'),
          {
            name: 'with',
            in: 'query',
            required: true,
            schema: { type: 'string', pattern: '^[A-Za-z0-9_-]{1,64}/[A-Za-z0-9._-]{1,128}$' },
            description: 'The run to compare with, as `DEVICE/ID`: the new side',
          },
        ],
        responses: {
          '200': {
            description: 'The unified diff (empty when the runs are the same)',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          '422': failure(`A run is larger than ${COMPARE_LIMIT} bytes or is not UTF-8 text; the detail names it`),
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/audit': {
      get: {
        operationId: 'listAudit',
        summary: 'The audit trail, newest first (administrators)',
        description: `Lists the audit trail's records (who, from where, on what), filtered by actor, event, device and days. A page holds at most ${PAGE_SIZE}; pass \`next\` as \`before\` for the following one.`,
        tags: ['Audit'],
        parameters: listParameters(AUDIT),
        responses: {
          '200': { description: 'A page of records', content: { 'application/json': { schema: page('AuditRecord') } } },
          ...forbidden,
          ...errors,
        },
      },
    },
    '/api/v1/accounts': {
      get: {
        operationId: 'listAccounts',
        summary: 'Known accounts, most recent sign-in first (administrators)',
        description: 'Lists the accounts that have signed in, with their last sign-in and their device and run counts.',
        tags: ['Accounts'],
        parameters: listParameters(ACCOUNTS),
        responses: {
          '200': { description: 'A page of accounts', content: { 'application/json': { schema: page('Account') } } },
          ...forbidden,
          ...errors,
        },
      },
    },
    '/api/v1/tokens': {
      get: {
        operationId: 'listAccessTokens',
        summary: "The account's own personal access tokens, newest first",
        description: `Lists the account's personal access tokens, revoked and expired ones too, with their scope and last use. The tokens themselves are never shown again. A page holds at most ${PAGE_SIZE}; pass \`next\` as \`before\` for the following one.`,
        tags: ['Access tokens'],
        parameters: listParameters(ACCESS_TOKENS),
        responses: {
          '200': { description: 'A page of tokens', content: { 'application/json': { schema: page('AccessToken') } } },
          ...errors,
        },
      },
      post: {
        operationId: 'createAccessToken',
        summary: 'Create a personal access token of the account; the token is shown only here',
        description: `Creates a token for the account, with a name, a lifetime and a scope (\`read\` or \`write\`, default \`write\`). It acts with the account's admin flag as its latest sign-in set it. Audited as \`${EVENTS.accessTokenCreated.name}\`.`,
        tags: ['Access tokens'],
        requestBody: jsonBody(ref('CreateToken')),
        responses: {
          '201': { description: 'Created', content: { 'application/json': { schema: ref('CreatedToken') } } },
          ...readOnly,
          ...errors,
          ...bodyErrors,
        },
      },
    },
    '/api/v1/tokens/{id}/revoke': {
      post: {
        operationId: 'revokeAccessToken',
        summary: "Revoke one of the account's own live tokens",
        description: `Revokes a token of the account: it is refused at once, on every instance. Audited as \`${EVENTS.accessTokenRevoked.name}\`.`,
        tags: ['Access tokens'],
        parameters: [id('id')],
        responses: { '204': { description: 'Revoked' }, ...readOnly, ...notFound, ...errors },
      },
    },
    '/api/v1/webhooks': {
      get: {
        operationId: 'listWebhooks',
        summary: 'Webhook endpoints, newest first (administrators)',
        description: `Lists every webhook endpoint (at most ${MAX_WEBHOOKS}) with its events, whether it is enabled, its last delivery and its failures in a row. No secret is ever shown again.`,
        tags: ['Webhooks'],
        responses: {
          '200': {
            description: 'The endpoints',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  additionalProperties: false,
                  properties: { items: { type: 'array', items: ref('Webhook') } },
                },
              },
            },
          },
          ...forbidden,
          ...errors,
        },
      },
      post: {
        operationId: 'createWebhook',
        summary: 'Add a webhook endpoint (administrators); its signing secret is shown only here',
        description: `Adds an endpoint that receives each event it subscribes to as a signed POST (Standard Webhooks). The target must be https:// and must not be a loopback, private, link-local, unique-local or multicast address unless PADDOCK_WEBHOOK_ALLOW_PRIVATE is set. The answer holds the signing secret; it is shown only here. Audited as \`${EVENTS.webhookCreated.name}\`.`,
        tags: ['Webhooks'],
        requestBody: jsonBody(ref('NewWebhook')),
        responses: {
          '201': { description: 'Added', content: { 'application/json': { schema: ref('CreatedWebhook') } } },
          ...forbidden,
          '409': failure(`There are already ${MAX_WEBHOOKS} endpoints`),
          ...errors,
          ...bodyErrors,
        },
      },
    },
    '/api/v1/webhooks/{id}': {
      get: {
        operationId: 'getWebhook',
        summary: 'One webhook endpoint and its latest delivery attempts (administrators)',
        description: `One endpoint, and its latest ${ATTEMPTS_SHOWN} delivery attempts, newest first: event, message id, time, status code or error, duration and the delivery's status.`,
        tags: ['Webhooks'],
        parameters: [id('id')],
        responses: {
          '200': {
            description: 'The endpoint',
            content: { 'application/json': { schema: ref('WebhookWithAttempts') } },
          },
          ...forbidden,
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/webhooks/{id}/test': {
      post: {
        operationId: 'testWebhook',
        summary: 'Queue a test message for one endpoint (administrators)',
        description: `Queues a \`${EVENTS.webhookTest.name}\` message for this endpoint alone; a disabled endpoint gets it once enabled. Audited as \`${EVENTS.webhookTest.name}\`.`,
        tags: ['Webhooks'],
        parameters: [id('id')],
        responses: { '204': { description: 'Queued' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/webhooks/{id}/disable': {
      post: {
        operationId: 'disableWebhook',
        summary: 'Disable an endpoint (administrators); its deliveries wait',
        description: `Disables an endpoint: nothing is sent to it, and its pending deliveries wait until it is enabled. Disabling a disabled endpoint changes nothing. Audited as \`${EVENTS.webhookDisabled.name}\`.`,
        tags: ['Webhooks'],
        parameters: [id('id')],
        responses: {
          '200': { description: 'The endpoint now', content: { 'application/json': { schema: ref('Webhook') } } },
          ...forbidden,
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/webhooks/{id}/enable': {
      post: {
        operationId: 'enableWebhook',
        summary: 'Enable an endpoint (administrators); its failures count from zero again',
        description: `Enables an endpoint: its pending deliveries are sent, and its failures in a row start again from zero. Enabling an enabled endpoint changes nothing. Audited as \`${EVENTS.webhookEnabled.name}\`.`,
        tags: ['Webhooks'],
        parameters: [id('id')],
        responses: {
          '200': { description: 'The endpoint now', content: { 'application/json': { schema: ref('Webhook') } } },
          ...forbidden,
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/webhooks/{id}/delete': {
      post: {
        operationId: 'deleteWebhook',
        summary: 'Delete an endpoint and its deliveries (administrators)',
        description: `Deletes an endpoint with its deliveries and their attempts. Audited as \`${EVENTS.webhookDeleted.name}\`.`,
        tags: ['Webhooks'],
        parameters: [id('id')],
        responses: { '204': { description: 'Deleted' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/webhooks/{id}/rotate-secret': {
      post: {
        operationId: 'rotateWebhookSecret',
        summary: "Replace an endpoint's signing secret (administrators); the new one is shown only here",
        description: `Replaces the signing secret. For 24 hours every message carries a signature with the old secret too, so a receiver can switch without losing one. The answer holds the new secret; it is shown only here. Audited as \`${EVENTS.webhookSecretRotated.name}\`.`,
        tags: ['Webhooks'],
        parameters: [id('id')],
        responses: {
          '200': { description: 'The new secret', content: { 'application/json': { schema: ref('WebhookSecret') } } },
          ...forbidden,
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/webhooks/{id}/deliveries/{delivery}/redeliver': {
      post: {
        operationId: 'redeliverWebhookMessage',
        summary: 'Send a delivery again, with the same message id (administrators)',
        description: `Queues one of the endpoint's deliveries again from the start of the retry schedule; the receiver gets the same \`webhook-id\`, so it can tell a repeat. Audited as \`${EVENTS.webhookRedelivered.name}\`.`,
        tags: ['Webhooks'],
        parameters: [
          id('id'),
          { name: 'delivery', in: 'path', required: true, schema: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } },
        ],
        responses: { '204': { description: 'Queued again' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/collections': {
      get: {
        operationId: 'listCollections',
        summary: 'Collections the account created (administrators: all), newest first',
        description: `Lists collection requests with their counts by target state, open ones (some device has not answered yet) or closed ones. A page holds at most ${PAGE_SIZE}; pass \`next\` as \`before\` for the following one.`,
        tags: ['Collections'],
        parameters: listParameters(COLLECTIONS),
        responses: {
          '200': {
            description: 'A page of collections',
            content: { 'application/json': { schema: page('Collection') } },
          },
          ...errors,
        },
      },
      post: {
        operationId: 'createCollection',
        summary: 'Ask devices for a run: named ones, or every device a filter of the device list matches',
        description: `Creates a collection with a target for each device it reaches (at most ${MAX_TARGETS}; up to ${MAX_NAMED_DEVICES} named devices), each of which the device sees as a request. A device that is revoked, not yet approved, whose ceiling is below the level asked, or that has ${MAX_OPEN_PER_DEVICE} open requests already is a \`skipped\` target, with the reason. An account that is not an administrator reaches only its own devices. A collection that reaches no device it can ask is closed at once. Audited as \`${EVENTS.collectionCreated.name}\`.`,
        tags: ['Collections'],
        requestBody: jsonBody(ref('NewCollection')),
        responses: {
          '201': {
            description: 'Created, with its counts',
            headers: {
              Location: { description: 'The collection', schema: { type: 'string' } },
            },
            content: { 'application/json': { schema: ref('Collection') } },
          },
          ...readOnly,
          ...errors,
          ...bodyErrors,
          '413': failure(`A body over ${COLLECTION_BODY_LIMIT} bytes`),
        },
      },
    },
    '/api/v1/collections/{id}': {
      get: {
        operationId: 'getCollection',
        summary: 'One collection with its counts, to its creator or an administrator',
        description:
          'One collection: who asked, at which level, why, until when, and its targets counted by state (for an account that is not an administrator, those of its own devices only). Its targets are at the `targets` operation.',
        tags: ['Collections'],
        parameters: [id('id')],
        responses: {
          '200': { description: 'The collection', content: { 'application/json': { schema: ref('Collection') } } },
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/collections/{id}/targets': {
      get: {
        operationId: 'listCollectionTargets',
        summary: "A collection's targets, newest first, in one state or all",
        description: `The devices a collection reached: each one's request, state and since when, the run that fulfilled it, or why it was declined or skipped. An account that is not an administrator sees the targets of its own devices only, whoever asked them. A page holds at most ${PAGE_SIZE}; pass \`next\` as \`before\` for the following one.`,
        tags: ['Collections'],
        parameters: [id('id'), ...listParameters(COLLECTION_TARGETS)],
        responses: {
          '200': {
            description: 'A page of targets',
            content: { 'application/json': { schema: page('CollectionTarget') } },
          },
          ...notFound,
          ...errors,
        },
      },
    },
    '/api/v1/collections/{id}/cancel': {
      post: {
        operationId: 'cancelCollection',
        summary: 'Cancel the open targets of a collection (its creator or an administrator)',
        description: `Cancels every target still \`pending\` or \`delivered\`, which closes the collection; a closed one stays as it is. An account that is not an administrator cancels those of its own devices only. Audited as \`${EVENTS.collectionCancelled.name}\`.`,
        tags: ['Collections'],
        parameters: [id('id')],
        responses: {
          '200': {
            description: 'The collection now',
            content: { 'application/json': { schema: ref('Collection') } },
          },
          ...readOnly,
          ...notFound,
          ...errors,
        },
      },
    },
  },
  components: {
    securitySchemes: { token: { type: 'http', scheme: 'bearer', description: 'A personal access token (pdk_…)' } },
    schemas: SCHEMAS,
  },
} as const;

/** GET /api/v1/openapi.json: the document, to a bearer token or a signed-in session. */
export function apiDocument(ctx: Ctx): Handler<UiEnv> {
  const body = JSON.stringify(OPENAPI);
  return async function apiDocumentHandler(c) {
    const session = await liveSession(ctx, c);
    if (session === undefined || session === 'unavailable') {
      const viewer = await apiViewer(ctx, c);
      if (viewer instanceof Response) return viewer;
    }
    c.header('Cache-Control', 'no-store');
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  };
}
