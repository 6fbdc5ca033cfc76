/**
 * Checks API responses against the served OpenAPI document (JSON Schema 2020-12, with Ajv): each
 * status must be documented for its operation, with its media type, and a JSON body must be valid
 * against the documented schema. Used by every API suite, so the document cannot drift.
 */
import assert from 'node:assert/strict';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { OPENAPI } from '../../src/api/openapi.ts';

export type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
  components: { schemas: Record<string, object> };
};

const BASE = 'https://paddock.invalid/components/';

export interface ResponseCheck {
  /** Throws (an assertion error) unless the response is as documented. */
  (method: string, template: string, status: number, contentType: string, body: unknown): void;
}

/** A checker for `doc` (the served document; by default the one the server serves). */
export function responseChecker(doc: Doc = JSON.parse(JSON.stringify(OPENAPI)) as Doc): ResponseCheck {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addFormat('date-time', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
  ajv.addFormat('date', /^\d{4}-\d\d-\d\d$/);
  ajv.addFormat('uri', (s: string) => URL.canParse(s));
  // Absolute references, so that each schema resolves the others wherever it is used.
  const absolute = (schema: object) =>
    JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', `"${BASE}`)) as object;
  for (const [name, schema] of Object.entries(doc.components.schemas))
    ajv.addSchema(absolute(schema), `${BASE}schemas/${name}`);
  return (method, template, status, contentType, body) => {
    const operation = doc.paths[template]?.[method.toLowerCase()];
    assert.ok(operation, `${method} ${template} is documented`);
    const response = operation.responses[String(status)];
    assert.ok(response, `${method} ${template} documents ${status}`);
    if (status === 204) return assert.equal(response.content, undefined, `${template} 204 has no body`);
    const type = contentType.split(';')[0] ?? '';
    const media = response.content?.[type];
    assert.ok(media, `${method} ${template} ${status} documents ${type}`);
    if (!type.endsWith('json')) return;
    assert.ok(ajv.validate(absolute(media.schema), body), `${method} ${template} ${status}: ${ajv.errorsText()}`);
  };
}
