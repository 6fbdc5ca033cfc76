/**
 * The SCIM schemas Paddock keeps (RFC 7643 sections 4, 4.3 and 8.7.1), declared once: /Schemas
 * shows them, and the body reader and the PATCH paths resolve every attribute name against them
 * (names are case-insensitive, RFC 7643 section 2.1). An attribute outside them is an unknown path.
 */

export const SCHEMA = {
  user: 'urn:ietf:params:scim:schemas:core:2.0:User',
  group: 'urn:ietf:params:scim:schemas:core:2.0:Group',
  enterprise: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User',
  listResponse: 'urn:ietf:params:scim:api:messages:2.0:ListResponse',
  patchOp: 'urn:ietf:params:scim:api:messages:2.0:PatchOp',
  error: 'urn:ietf:params:scim:api:messages:2.0:Error',
  serviceProviderConfig: 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig',
  resourceType: 'urn:ietf:params:scim:schemas:core:2.0:ResourceType',
  schema: 'urn:ietf:params:scim:schemas:core:2.0:Schema',
} as const;

export type AttributeType = 'string' | 'boolean' | 'complex' | 'reference';

export interface Attribute {
  readonly name: string;
  readonly type: AttributeType;
  readonly multiValued: boolean;
  readonly required: boolean;
  readonly caseExact: boolean;
  readonly mutability: 'readWrite' | 'immutable' | 'readOnly';
  readonly uniqueness: 'none' | 'server';
  readonly subAttributes?: readonly Attribute[];
}

function attr(name: string, type: AttributeType = 'string', more: Partial<Attribute> = {}): Attribute {
  return {
    name,
    type,
    multiValued: false,
    required: false,
    caseExact: false,
    mutability: 'readWrite',
    uniqueness: 'none',
    ...more,
  };
}

const many = (name: string, subAttributes: readonly Attribute[]) =>
  attr(name, 'complex', { multiValued: true, subAttributes });

const TYPED_VALUE = [attr('value'), attr('display'), attr('type'), attr('primary', 'boolean')];

/** A resource's `externalId` (RFC 7643 section 3.1): the provider's own id, compared exactly. */
const EXTERNAL_ID = attr('externalId', 'string', { caseExact: true });

export const USER_ATTRIBUTES: readonly Attribute[] = [
  attr('userName', 'string', { required: true, uniqueness: 'server' }),
  attr('name', 'complex', {
    subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map(
      (n) => attr(n),
    ),
  }),
  attr('displayName'),
  attr('nickName'),
  attr('profileUrl', 'reference'),
  attr('title'),
  attr('userType'),
  attr('preferredLanguage'),
  attr('locale'),
  attr('timezone'),
  attr('active', 'boolean'),
  many('emails', TYPED_VALUE),
  many('phoneNumbers', TYPED_VALUE),
  many('addresses', [
    ...['formatted', 'streetAddress', 'locality', 'region', 'postalCode', 'country', 'type'].map((n) => attr(n)),
    attr('primary', 'boolean'),
  ]),
  EXTERNAL_ID,
];

export const ENTERPRISE_ATTRIBUTES: readonly Attribute[] = [
  ...['employeeNumber', 'costCenter', 'organization', 'division', 'department'].map((n) => attr(n)),
  attr('manager', 'complex', { subAttributes: [attr('value'), attr('$ref', 'reference'), attr('displayName')] }),
];

export const GROUP_ATTRIBUTES: readonly Attribute[] = [
  attr('displayName', 'string', { required: true, uniqueness: 'server' }),
  many('members', [
    attr('value', 'string', { caseExact: true, mutability: 'immutable' }),
    attr('$ref', 'reference', { mutability: 'immutable' }),
    attr('display'),
    attr('type', 'string', { mutability: 'immutable' }),
  ]),
  EXTERNAL_ID,
];

/** A resource type's schemas: its core schema's attributes and, for users, the enterprise extension's. */
export interface ResourceSchema {
  readonly core: string;
  readonly attributes: readonly Attribute[];
  readonly extension?: { readonly id: string; readonly attributes: readonly Attribute[] };
}

export const USER_SCHEMA: ResourceSchema = {
  core: SCHEMA.user,
  attributes: USER_ATTRIBUTES,
  extension: { id: SCHEMA.enterprise, attributes: ENTERPRISE_ATTRIBUTES },
};

export const GROUP_SCHEMA: ResourceSchema = { core: SCHEMA.group, attributes: GROUP_ATTRIBUTES };

/** The attribute of `attributes` named `name` in any case (RFC 7643 section 2.1), or undefined. */
export function findAttribute(attributes: readonly Attribute[], name: string): Attribute | undefined {
  const lower = name.toLowerCase();
  return attributes.find((a) => a.name.toLowerCase() === lower);
}
