// Cursors of the API's admin lists (docs/contract.md section 11): enrollment tokens, the audit trail and
// accounts, each walked page by page with `next` as `before`: every item once, newest first, and
// the last page without `next`. Every page is checked against the OpenAPI document.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secretHash } from '../../src/crypto/random.ts';
import { newAccessToken } from '../../src/domain/access_tokens.ts';
import { harness, type Harness } from '../support/harness.ts';
import { responseChecker } from '../support/openapi.ts';
import { ACCOUNTS } from '../support/scenario.ts';

const check = responseChecker();

async function walk(
  h: Harness,
  bearer: string,
  path: string,
  template: string,
): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let next: string | undefined;
  for (let pages = 0; pages < 10; pages++) {
    const url =
      next === undefined ? path : `${path}${path.includes('?') ? '&' : '?'}before=${encodeURIComponent(next)}`;
    const res = await h.request(url, { headers: { authorization: `Bearer ${bearer}` } });
    const body = (await res.json()) as { items: Array<Record<string, unknown>>; next?: string };
    check('GET', template, res.status, res.headers.get('content-type') ?? '', body);
    assert.equal(res.status, 200);
    items.push(...body.items);
    next = body.next;
    if (next === undefined) return items;
    assert.equal(body.items.length, 50, 'a page that has a next one is full');
  }
  throw new Error('more pages than expected');
}

test('enrollment tokens, audit records and accounts are paged by their cursors, each item once', async () => {
  const h = await harness();
  try {
    const bearer = newAccessToken();
    await h.store.createAccessToken({
      hash: secretHash(bearer),
      subject: ACCOUNTS.admin.subject,
      admin: true,
      scope: 'write',
      name: 'paging',
      createdAt: h.clock.now(),
      expiresAt: h.clock.now() + 3_600_000,
    });
    await h.store.recordSignIn({ ...ACCOUNTS.admin, lastSignInAt: h.clock.now() - 1 });
    for (let i = 0; i < 60; i++) {
      await h.store.createEnrollToken({
        hash: secretHash(`token ${i}`),
        owner: ACCOUNTS.user.subject,
        createdBy: ACCOUNTS.admin.subject,
        createdAt: h.clock.now(),
        expiresAt: h.clock.now() + 3_600_000,
      });
      await h.store.recordSignIn({
        subject: `oidc:user-${i}`,
        display: `User ${i}`,
        lastSignInAt: h.clock.now(),
        admin: false,
      });
      h.clock.advance(1000);
    }
    for (let i = 0; i < 70; i++)
      await h.store.appendAudit({
        at: h.clock.now() + i,
        event: 'device.revoked',
        account: ACCOUNTS.admin.subject,
        client: null,
        device: `d_${String(i).padStart(4, '0')}`,
        run: null,
        detail: '',
      });

    const tokens = await walk(h, bearer, '/api/v1/enroll-tokens', '/api/v1/enroll-tokens');
    assert.equal(tokens.length, 60);
    assert.equal(new Set(tokens.map((t) => t.id)).size, 60);
    const created = tokens.map((t) => String(t.created_at));
    assert.deepEqual(created, [...created].sort().reverse(), 'newest first');

    const accounts = await walk(h, bearer, '/api/v1/accounts', '/api/v1/accounts');
    // The 60 users and the token's own account, whose sign-in lets its token act (docs/contract.md section 14).
    assert.equal(accounts.length, 61);
    assert.equal(accounts[0]?.subject, 'oidc:user-59', 'most recent sign-in first');
    assert.equal(accounts.at(-1)?.subject, ACCOUNTS.admin.subject);
    assert.equal(new Set(accounts.map((a) => a.subject)).size, 61);

    const audit = await walk(h, bearer, '/api/v1/audit?event=device.revoked', '/api/v1/audit');
    assert.equal(audit.length, 70);
    assert.equal(new Set(audit.map((r) => r.device)).size, 70);
  } finally {
    await h.close();
  }
});
