/**
 * Every route of SCIM 2.0 under /scim/v2 (docs/contract.md section 20). Each checks its scim token
 * itself (scim/auth.ts), so every row's access is `token`: no session, no cookie, no CSRF.
 * host/interface.ts mounts them on the admin host. They are outside the JSON API's OpenAPI
 * document: RFC 7643 and 7644 describe them, and /scim/v2/Schemas answers what Paddock keeps.
 */
import type { DoorRoute } from '../context/routes.ts';
import { scimResourceTypes, scimSchemas, scimServiceProviderConfig } from './discovery.ts';
import {
  scimGroupCreate,
  scimGroupDelete,
  scimGroupGet,
  scimGroupPatch,
  scimGroupReplace,
  scimGroupsList,
} from './groups.ts';
import { scimUserCreate, scimUserDelete, scimUserGet, scimUserPatch, scimUserReplace, scimUsersList } from './users.ts';

export const scimRoutes: readonly DoorRoute<'token'>[] = [
  { method: 'GET', path: '/scim/v2/ServiceProviderConfig', access: 'token', handler: scimServiceProviderConfig },
  { method: 'GET', path: '/scim/v2/ResourceTypes', access: 'token', handler: scimResourceTypes },
  { method: 'GET', path: '/scim/v2/Schemas', access: 'token', handler: scimSchemas },
  { method: 'GET', path: '/scim/v2/Users', access: 'token', handler: scimUsersList },
  { method: 'POST', path: '/scim/v2/Users', access: 'token', handler: scimUserCreate },
  { method: 'GET', path: '/scim/v2/Users/:id', access: 'token', handler: scimUserGet },
  { method: 'PUT', path: '/scim/v2/Users/:id', access: 'token', handler: scimUserReplace },
  { method: 'PATCH', path: '/scim/v2/Users/:id', access: 'token', handler: scimUserPatch },
  { method: 'DELETE', path: '/scim/v2/Users/:id', access: 'token', handler: scimUserDelete },
  { method: 'GET', path: '/scim/v2/Groups', access: 'token', handler: scimGroupsList },
  { method: 'POST', path: '/scim/v2/Groups', access: 'token', handler: scimGroupCreate },
  { method: 'GET', path: '/scim/v2/Groups/:id', access: 'token', handler: scimGroupGet },
  { method: 'PUT', path: '/scim/v2/Groups/:id', access: 'token', handler: scimGroupReplace },
  { method: 'PATCH', path: '/scim/v2/Groups/:id', access: 'token', handler: scimGroupPatch },
  { method: 'DELETE', path: '/scim/v2/Groups/:id', access: 'token', handler: scimGroupDelete },
];
