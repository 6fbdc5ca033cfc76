// A SCIM client over a test harness: a scim token of the break-glass administrator, and requests
// that send and read application/scim+json, as an identity provider does.
import assert from 'node:assert/strict';
import type { Store } from '../../src/store/store.ts';
import { consoleAccessToken, type Harness, harness, type HarnessOptions } from '../support/harness.ts';

export const ADMIN = { subject: 'local:admin', display: 'admin', admin: true };

export interface ScimAnswer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

export interface ScimClient {
  h: Harness;
  token: string;
  send(method: string, path: string, body?: unknown, token?: string): Promise<ScimAnswer>;
  close(): Promise<void>;
}

export async function scimClient(store?: Store, opts: HarnessOptions = {}): Promise<ScimClient> {
  const h = await harness({ ...opts, ...(store ? { store } : {}) });
  let token: string;
  try {
    token = (await consoleAccessToken(h, ADMIN, { scope: 'scim', name: 'okta' })).value;
  } catch (err) {
    await h.close();
    throw err;
  }
  return {
    h,
    token,
    async send(method, path, body, as = token) {
      const res = await h.request(`/scim/v2${path}`, {
        method,
        headers: {
          authorization: `Bearer ${as}`,
          ...(body === undefined ? {} : { 'content-type': 'application/scim+json; charset=utf-8' }),
        },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      const text = await res.text();
      if (text !== '') assert.match(res.headers.get('content-type') ?? '', /^application\/scim\+json/, text);
      return {
        status: res.status,
        headers: res.headers,
        body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
      };
    },
    close: () => h.close(),
  };
}

/** Asserts a SCIM error of `status` (and `scimType`, when given). */
export function assertScimError(a: ScimAnswer, status: number, scimType?: string): void {
  assert.equal(a.status, status, JSON.stringify(a.body));
  assert.deepEqual(a.body.schemas, ['urn:ietf:params:scim:api:messages:2.0:Error']);
  assert.equal(a.body.status, String(status));
  if (scimType !== undefined) assert.equal(a.body.scimType, scimType, JSON.stringify(a.body));
  assert.equal(typeof a.body.detail, 'string');
}
