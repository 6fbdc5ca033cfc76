// The token actions (src/actions/enroll_tokens.ts, access_tokens.ts) without HTTP: the failures
// by name, what is stored (only hashes), and the exact records, which never hold a token.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createAccessToken, revokeAccessToken } from '../../src/actions/access_tokens.ts';
import { mintEnrollToken, revokeEnrollToken } from '../../src/actions/enroll_tokens.ts';
import { secretHash } from '../../src/crypto/random.ts';
import { defaultLinkBuilder } from '../../src/link/link_builder.ts';
import { ADMIN, ANN, BOB, world, type World } from './world.ts';

const TTL = 3600;
const mintDeps = (w: World) => ({
  ...w,
  linkBuilder: defaultLinkBuilder({ baseUrl: 'https://paddock.example:8443', pins: () => ['sha256/pin='] }),
  config: { enrollTokenTtlSeconds: TTL },
});

test('mint: the owner defaults to the actor; the token leaves only in the link; logged without it', () =>
  world(async (w) => {
    const minted = await mintEnrollToken(mintDeps(w), ADMIN, new Map([['max_privacy', 'redacted']]));
    assert.ok(minted.ok);
    const token = /[?&]token=([A-Za-z0-9_-]+)&max_privacy=redacted$/.exec(minted.link)?.[1] ?? '';
    assert.match(minted.link, /^paddock:\/\/enroll\?server=paddock\.example:8443&pin=sha256\/pin=&token=/);
    assert.equal(minted.token.owner, 'local:admin');
    assert.equal(minted.token.createdBy, 'local:admin');
    assert.equal(minted.token.expiresAt, w.clock.now() + TTL * 1000, 'PADDOCK_ENROLL_TOKEN_TTL by default');
    assert.equal(minted.token.uses, 1);
    // The store holds the hash: the token from the link enrolls.
    const device = await w.store.enrollDevice({
      tokenHash: secretHash(token),
      now: w.clock.now(),
      deviceId: 'dn',
      name: 'dn',
      credentialHash: 'c',
    });
    assert.equal(device?.owner, 'local:admin');
    assert.equal(device?.maxPrivacy, 'redacted');
    assert.deepEqual(w.records(), [
      {
        account: 'local:admin',
        client: '192.0.2.1',
        owner: 'local:admin',
        token: minted.token.publicId,
        uses: 1,
        max_privacy: 'redacted',
        approval: 'automatic',
        level: 'info',
        event: 'enroll_token.minted',
      },
    ]);
    assert.ok(!JSON.stringify(w.records()).includes(token), 'the token is in no record');
  }));

test('mint: each bad field is its named failure, and nothing is stored or logged', async () => {
  const cases: Array<[Record<string, string>, string]> = [
    [{ owner: 'nobody' }, 'badOwner'],
    [{ owner: 'group:' }, 'badOwner'],
    [{ owner: 'group:a\u0000b' }, 'badOwner'],
    [{ expires_in: '1' }, 'badExpiresIn'],
    [{ uses: '0' }, 'badUses'],
    [{ name: '\u0000' }, 'badDeviceName'],
    [{ note: 'x'.repeat(10_000) }, 'badNote'],
    [{ max_privacy: 'secret' }, 'badMaxPrivacy'],
  ];
  for (const [fields, failure] of cases)
    await world(async (w) => {
      const outcome = await mintEnrollToken(mintDeps(w), ADMIN, new Map(Object.entries(fields)));
      assert.deepEqual(outcome.ok ? outcome : { ok: false, failure: outcome.failure }, { ok: false, failure });
      assert.equal((await w.store.outstandingEnrollTokens({ limit: 10 }, w.clock.now())).items.length, 0);
      assert.deepEqual(w.records(), []);
    });
});

test('revoke an enrollment token: once, by public id; false for a bad or unknown id', () =>
  world(async (w) => {
    const minted = await mintEnrollToken(mintDeps(w), ADMIN, new Map([['owner', 'oidc:ann']]));
    assert.ok(minted.ok);
    w.logger.records.length = 0;
    assert.equal(await revokeEnrollToken(w, ADMIN, 'not an id!'), false);
    assert.equal(await revokeEnrollToken(w, ADMIN, minted.token.publicId), true);
    assert.equal(await revokeEnrollToken(w, ADMIN, minted.token.publicId), false, 'no longer outstanding');
    assert.deepEqual(w.records(), [
      {
        account: 'local:admin',
        client: '192.0.2.1',
        token: minted.token.publicId,
        level: 'info',
        event: 'enroll_token.revoked',
      },
    ]);
  }));

test("access tokens: created with the actor's rights, stored as a hash; revoked by its own account only", () =>
  world(async (w) => {
    assert.deepEqual(await createAccessToken(w, ANN, { name: ' ', expiresIn: '' }), {
      ok: false,
      failure: 'badAccessTokenName',
    });
    assert.deepEqual(await createAccessToken(w, ANN, { name: 'ci', expiresIn: '60' }), {
      ok: false,
      failure: 'badAccessTokenExpiresIn',
    });
    assert.deepEqual(w.records(), []);
    const created = await createAccessToken(w, ANN, { name: ' ci ', expiresIn: '' });
    assert.ok(created.ok);
    assert.match(created.token, /^pdk_/);
    assert.equal(created.record.name, 'ci');
    assert.equal(created.record.admin, false);
    assert.equal(created.record.expiresAt, w.clock.now() + 2_592_000_000, 'thirty days by default');
    const found = await w.store.accessTokenByHash(secretHash(created.token), w.clock.now());
    assert.equal(found?.publicId, created.record.publicId);
    const id = created.record.publicId;
    assert.equal(await revokeAccessToken(w, BOB, id), false, "another account's token");
    assert.equal(await revokeAccessToken(w, ADMIN, id), false, 'an admin too');
    assert.equal(await revokeAccessToken(w, ANN, id), true);
    assert.equal(await revokeAccessToken(w, ANN, id), false, 'already revoked');
    assert.deepEqual(w.records(), [
      {
        account: 'oidc:ann',
        client: '192.0.2.7',
        token: id,
        scope: 'write',
        level: 'info',
        event: 'access_token.created',
      },
      { account: 'oidc:ann', client: '192.0.2.7', token: id, level: 'info', event: 'access_token.revoked' },
    ]);
    assert.ok(!JSON.stringify(w.records()).includes(created.token), 'the token is in no record');
  }));
