// Back-channel logout across instances (docs/contract.md sections 17 and 18): two real `paddock
// serve` processes on one PostgreSQL database, one client at a real identity provider
// (oidc-provider) whose back-channel logout URI is instance B's. A person signs in through A and
// signs out at the provider, which posts its logout token to B: A refuses that session on its
// next request, since the session's row in the shared store is all either instance believes.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLIENT, paddockClient, type StartedProvider, startProvider } from '../e2e/provider.ts';
import { ProviderUser } from '../e2e/provider_user.ts';
import { type PaddockProcess, paddock } from '../support/process.ts';
import {
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';
import { freePort } from '../support/tls_fixture.ts';
import { consoleClient } from './client.ts';

const available = await postgresAvailable();
const PASSWORD = 'back-channel instances password';
const { signIn } = consoleClient(() => PASSWORD);

/** GET /devices with `cookie`: 200 while the session holds, 303 once it is refused. */
async function devices(base: string, cookie: string): Promise<number> {
  const res = await fetch(`${base}/devices`, { headers: { cookie }, redirect: 'manual' });
  await res.body?.cancel();
  return res.status;
}

if (!available) {
  test(`back-channel logout across two instances (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('back-channel logout across two instances on one database', () => {
    let database: string;
    let dir: string;
    let provider: StartedProvider;
    const instances: PaddockProcess[] = [];
    let a = '';
    let b = '';

    before(async () => {
      const [portA, portB, providerPort] = [await freePort(), await freePort(), await freePort()];
      [a, b] = [`http://127.0.0.1:${portA}`, `http://127.0.0.1:${portB}`];
      database = await freshDatabase();
      dir = await mkdtemp(join(tmpdir(), 'paddock-multi-backchannel-'));
      // One deployment, one client: both instances' callbacks, and the logout tokens go to B.
      provider = await startProvider(providerPort, [
        paddockClient([a, b], { backchannelLogoutUri: `${b}/oidc/backchannel-logout` }),
      ]);
      const start = async (name: string, port: number, base: string) => {
        const p = paddock(['serve'], {
          PADDOCK_LISTEN: `127.0.0.1:${port}`,
          PADDOCK_BASE_URL: base,
          PADDOCK_DATA_DIR: join(dir, name),
          ...sharedDatabaseEnv(databaseUrl(database), dir),
          PADDOCK_ADMIN_PASSWORD: PASSWORD,
          PADDOCK_OIDC_ISSUER: provider.issuer,
          PADDOCK_OIDC_CLIENT_ID: CLIENT.id,
          PADDOCK_OIDC_CLIENT_SECRET: CLIENT.secret,
        });
        instances.push(p);
        await p.waitFor(/serving on/);
      };
      await Promise.all([start('a', portA, a), start('b', portB, b)]);
    });
    after(async () => {
      for (const p of instances) p.child.kill('SIGTERM');
      await Promise.all(instances.map((p) => p.exited));
      provider?.close();
      if (database) await dropDatabase(database);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('a logout token posted to B ends, on A at once, the session of the sign-in made through A; audited once', async () => {
      const throughA = new ProviderUser();
      const throughB = new ProviderUser();
      const issued = provider.idTokens.length;
      const cookieA = await throughA.signIn(a, 'alice');
      const cookieB = await throughB.signIn(b, 'alice');
      const sidA = provider.idTokens[issued]?.sid;
      assert.ok(sidA, 'the identity token names the sign-in');
      for (const base of [a, b]) {
        assert.equal(await devices(base, cookieA), 200, `the session made through A holds on ${base}`);
        assert.equal(await devices(base, cookieB), 200, `the session made through B holds on ${base}`);
      }

      const posted = provider.logoutPosts.length;
      await throughA.signOutAtProvider(provider.issuer);
      const post = provider.logoutPosts[posted];
      assert.equal(provider.logoutPosts.length, posted + 1);
      assert.equal(post?.url, `${b}/oidc/backchannel-logout`, 'the logout token went to B, never to A');
      assert.equal(post?.status, 200, `B accepted it${post?.error ? `: ${post.error}` : ''}`);
      assert.equal(post?.claims.sid, sidA);

      assert.equal(await devices(a, cookieA), 303, 'A refuses the session on its next request');
      assert.equal(await devices(b, cookieA), 303, 'and so does B');
      assert.deepEqual([await devices(a, cookieB), await devices(b, cookieB)], [200, 200], 'the other sign-in holds');

      const admin = await signIn(a);
      const trail = await fetch(`${a}/audit.jsonl?event=session.ended_by_provider`, {
        headers: { cookie: admin.cookie },
      });
      const records = (await trail.text())
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { account: string; detail: string });
      assert.deepEqual(
        records.map((r) => [r.account, r.detail]),
        [['oidc:alice', 'sessions=1']],
      );
    });
  });
}
