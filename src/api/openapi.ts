/**
 * The API's OpenAPI 3.1 document (CONTRACT section 11), served at /api/v1/openapi.json. Its schemas
 * are JSON Schema 2020-12, and the test suite validates every API response it makes against them
 * (test/api/openapi.test.ts), so the document cannot drift from what the server answers.
 */
import type { Handler } from 'hono';
import { DEVICE_SORTS, DEVICE_STATUSES } from '../ui/list_query.ts';
import { PRIVACY_LEVELS } from '../domain/privacy.ts';
import type { Ctx, UiEnv } from '../ui/deps.ts';
import { cookieSession } from '../ui/guard.ts';
import { version } from '../version.ts';
import { apiViewer } from './auth.ts';

const time = { type: ['string', 'null'], format: 'date-time' } as const;
const problem = { $ref: '#/components/schemas/Problem' } as const;
const query = (name: string, schema: object, description: string) => ({ name, in: 'query', schema, description });
const errors = {
  '400': {
    description: 'A bad, unknown or repeated parameter',
    content: { 'application/problem+json': { schema: problem } },
  },
  '401': { description: 'No valid access token', content: { 'application/problem+json': { schema: problem } } },
} as const;
const device = { $ref: '#/components/schemas/Device' } as const;
const run = { $ref: '#/components/schemas/Run' } as const;
const notFound = {
  '404': {
    description: 'Not found, or outside the account scope',
    content: { 'application/problem+json': { schema: problem } },
  },
} as const;
const forbidden = {
  '403': {
    description: 'The account is not an administrator',
    content: { 'application/problem+json': { schema: problem } },
  },
} as const;
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
  },
  components: {
    securitySchemes: { token: { type: 'http', scheme: 'bearer', description: 'A personal access token (pdk_…)' } },
    schemas: {
      Device: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'name',
          'owner',
          'status',
          'enrolled_at',
          'last_seen_at',
          'last_upload_at',
          'revoked_at',
          'max_privacy',
        ],
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          owner: { type: 'string' },
          status: { enum: DEVICE_STATUSES },
          enrolled_at: { type: 'string', format: 'date-time' },
          last_seen_at: time,
          last_upload_at: time,
          revoked_at: time,
          max_privacy: { enum: PRIVACY_LEVELS },
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
        },
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
    },
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
