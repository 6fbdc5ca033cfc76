/**
 * What SCIM clients read first (RFC 7644 section 4; RFC 7643 sections 5 to 7): what Paddock
 * supports, its two resource types, and their schemas from the one declaration in schema.ts.
 */
import type { Handler } from 'hono';
import type { Ctx, UiEnv } from '../context/deps.ts';
import { scimOperation } from './auth.ts';
import { scimJson } from './errors.ts';
import { SCIM_BODY_LIMIT } from './body.ts';
import { OPERATIONS_MAX } from '../domain/scim_patch.ts';
import { LIST_MAX } from './lists.ts';
import {
  type Attribute,
  ENTERPRISE_ATTRIBUTES,
  GROUP_ATTRIBUTES,
  SCHEMA,
  USER_ATTRIBUTES,
} from '../domain/scim_schema.ts';

const base = (ctx: Ctx) => ctx.config.baseUrl.replace(/\/$/, '');

export function scimServiceProviderConfig(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c) =>
    scimJson(c, {
      schemas: [SCHEMA.serviceProviderConfig],
      documentationUri: `${base(ctx)}/scim/v2`,
      patch: { supported: true },
      bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
      filter: { supported: true, maxResults: LIST_MAX },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
      authenticationSchemes: [
        {
          type: 'oauthbearertoken',
          name: 'Bearer token',
          description: `a Paddock access token of the scim scope; bodies up to ${SCIM_BODY_LIMIT} bytes, ${OPERATIONS_MAX} operations a PATCH`,
          primary: true,
        },
      ],
      meta: { resourceType: 'ServiceProviderConfig', location: `${base(ctx)}/scim/v2/ServiceProviderConfig` },
    }),
  );
}

function resourceTypes(ctx: Ctx) {
  return [
    {
      schemas: [SCHEMA.resourceType],
      id: 'User',
      name: 'User',
      endpoint: '/Users',
      schema: SCHEMA.user,
      schemaExtensions: [{ schema: SCHEMA.enterprise, required: false }],
      meta: { resourceType: 'ResourceType', location: `${base(ctx)}/scim/v2/ResourceTypes/User` },
    },
    {
      schemas: [SCHEMA.resourceType],
      id: 'Group',
      name: 'Group',
      endpoint: '/Groups',
      schema: SCHEMA.group,
      meta: { resourceType: 'ResourceType', location: `${base(ctx)}/scim/v2/ResourceTypes/Group` },
    },
  ];
}

export function scimResourceTypes(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c) => scimJson(c, listOf(resourceTypes(ctx))));
}

function attributeJson(a: Attribute): Record<string, unknown> {
  return {
    name: a.name,
    type: a.type,
    multiValued: a.multiValued,
    required: a.required,
    caseExact: a.caseExact,
    mutability: a.mutability,
    returned: 'default',
    uniqueness: a.uniqueness,
    ...(a.subAttributes ? { subAttributes: a.subAttributes.map(attributeJson) } : {}),
  };
}

function schemas(ctx: Ctx) {
  const one = (id: string, name: string, attributes: readonly Attribute[]) => ({
    schemas: [SCHEMA.schema],
    id,
    name,
    attributes: attributes.map(attributeJson),
    meta: { resourceType: 'Schema', location: `${base(ctx)}/scim/v2/Schemas/${id}` },
  });
  return [
    one(SCHEMA.user, 'User', USER_ATTRIBUTES),
    one(SCHEMA.enterprise, 'EnterpriseUser', ENTERPRISE_ATTRIBUTES),
    one(SCHEMA.group, 'Group', GROUP_ATTRIBUTES),
  ];
}

export function scimSchemas(ctx: Ctx): Handler<UiEnv> {
  return scimOperation(ctx, [], async (c) => scimJson(c, listOf(schemas(ctx))));
}

function listOf(resources: unknown[]) {
  return {
    schemas: [SCHEMA.listResponse],
    totalResults: resources.length,
    startIndex: 1,
    itemsPerPage: resources.length,
    Resources: resources,
  };
}
