/**
 * The API's OpenAPI 3.1 document (CONTRACT section 11), served at /api/v1/openapi.json. Its schemas
 * are JSON Schema 2020-12, and the test suite validates every API response it makes against them
 * (test/api/openapi.test.ts), so the document cannot drift from what the server answers.
 */
import type { Handler } from 'hono';
import { DEVICE_SORTS, DEVICE_STATUSES } from '../domain/devices.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import { AUDITED_EVENTS } from '../events/catalogue.ts';
import { JSON_LIMIT } from './json_body.ts';
import { SCHEMAS } from './openapi_schemas.ts';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { cookieSession } from '../console/guard.ts';
import { version } from '../version.ts';
import { apiViewer } from './auth.ts';

const problem = { $ref: '#/components/schemas/Problem' } as const;
const query = (name: string, schema: object, description: string) => ({ name, in: 'query', schema, description });
/** A problem answer (RFC 9457) with this description. */
const failure = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: problem } },
});
const errors = {
  '400': failure('A bad, unknown or repeated parameter or body field'),
  '401': failure('No valid access token'),
} as const;
const device = { $ref: '#/components/schemas/Device' } as const;
const run = { $ref: '#/components/schemas/Run' } as const;
const notFound = { '404': failure('Not found, or outside the account scope') } as const;
const forbidden = { '403': failure('The account is not an administrator') } as const;
const conflict = { '409': failure('The device is not revoked') } as const;
const bodyErrors = {
  '408': failure('A body that arrived too slowly'),
  '413': failure(`A body over ${JSON_LIMIT} bytes`),
  '415': failure('A body that is not application/json'),
} as const;
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const cursor = query('before', { type: 'string' }, 'cursor: `next` of the previous page');
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
  info: { title: 'Paddock API', version },
  security: [{ token: [] }],
  paths: {
    '/api/v1/openapi.json': {
      get: {
        operationId: 'getDocument',
        summary: 'This document (also to a signed-in console session)',
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
        parameters: [
          query('q', { type: 'string', minLength: 3, maxLength: 128 }, 'id or name contains, any case'),
          query('owner', { type: 'string' }, 'an account subject'),
          query('status', { enum: DEVICE_STATUSES }, 'device status'),
          query('sort', { enum: DEVICE_SORTS }, 'order'),
          query('before', { type: 'string', pattern: '^[1-9][0-9]{0,14}$' }, 'cursor: `next` of the previous page'),
        ],
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
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '204': { description: 'Revoked' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/runs/{device}/{id}': {
      delete: {
        operationId: 'deleteRun',
        summary: 'Delete a run the account may see',
        parameters: [
          { name: 'device', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
        ],
        responses: { '204': { description: 'Deleted' }, ...notFound, ...errors },
      },
      get: {
        operationId: 'getRun',
        summary: 'One run (its description; the bytes are at …/raw in the console), if the account may see it',
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
        parameters: [
          query('device', { type: 'string' }, 'a device id'),
          query('privacy', { enum: PRIVACY_LEVELS }, 'privacy level'),
          query('since', { type: 'string', format: 'date' }, 'uploaded on or after this day (UTC)'),
          query('until', { type: 'string', format: 'date' }, 'uploaded on or before this day (UTC)'),
          query('flagged', { const: 'yes' }, 'only runs the level check flagged'),
          query('before', { type: 'string', pattern: '^[1-9][0-9]{0,14}$' }, 'cursor: `next` of the previous page'),
        ],
        responses: {
          '200': { description: 'A page of runs', content: { 'application/json': { schema: page('Run') } } },
          ...errors,
        },
      },
    },
    '/api/v1/devices/{id}/rename': {
      post: {
        operationId: 'renameDevice',
        summary: 'Rename a device (its owner or an administrator)',
        parameters: [id('id')],
        requestBody: jsonBody(ref('Rename')),
        responses: {
          '200': { description: 'The renamed device', content: { 'application/json': { schema: device } } },
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
        parameters: [id('id')],
        responses: { '204': { description: 'Deleted' }, ...forbidden, ...notFound, ...conflict, ...errors },
      },
    },
    '/api/v1/enroll-tokens': {
      get: {
        operationId: 'listEnrollTokens',
        summary: 'Outstanding enrollment tokens, newest first (administrators)',
        parameters: [cursor],
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
        parameters: [id('id')],
        responses: { '204': { description: 'Revoked' }, ...forbidden, ...notFound, ...errors },
      },
    },
    '/api/v1/runs/{device}/{id}/raw': {
      get: {
        operationId: 'downloadRun',
        summary: 'The bytes of a run exactly as uploaded',
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
    '/api/v1/audit': {
      get: {
        operationId: 'listAudit',
        summary: 'The audit trail, newest first (administrators)',
        parameters: [
          query('actor', { type: 'string' }, 'an account subject, or `system`'),
          query('event', { enum: [...AUDITED_EVENTS].sort() }, 'an audited event'),
          query('device', { type: 'string' }, 'a device id'),
          query('since', { type: 'string', format: 'date' }, 'on or after this day (UTC)'),
          query('until', { type: 'string', format: 'date' }, 'on or before this day (UTC)'),
          cursor,
        ],
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
        parameters: [cursor],
        responses: {
          '200': { description: 'A page of accounts', content: { 'application/json': { schema: page('Account') } } },
          ...forbidden,
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
    if (!cookieSession(ctx, c)) {
      const viewer = await apiViewer(ctx, c);
      if (viewer instanceof Response) return viewer;
    }
    c.header('Cache-Control', 'no-store');
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  };
}
