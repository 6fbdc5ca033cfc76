// The OpenAPI document is clean under Spectral's `spectral:oas` ruleset (issue 23): no error and
// no warning, so tools that generate clients or documentation from it have nothing to guess.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { OPENAPI } from '../../src/api/openapi.ts';

test('spectral:oas finds nothing in the OpenAPI document', async () => {
  const spectral = new spectralCore.Spectral();
  // What `spectral lint` does with `extends: spectral:oas`: the ruleset's recommended rules.
  spectral.setRuleset({ extends: [spectralRulesets.oas] } as never);
  const found = await spectral.run(
    new spectralCore.Document(JSON.stringify(OPENAPI, null, 2), spectralParsers.Json, 'openapi.json'),
  );
  const lines = found.map(
    (d) => `${['error', 'warning', 'info', 'hint'][d.severity]} ${d.code} ${d.path.join('.')}: ${d.message}`,
  );
  assert.deepEqual(lines, []);
});
