// Sign-in states across instances (docs/contract.md sections 18 and 23): two real `paddock serve`
// processes on one PostgreSQL database behind one address, a real identity provider
// (oidc-provider) that counts its token-endpoint requests. The balancer sends /auth/start to A and
// the provider's callback to B: B accepts the state A issued, since the instances share the session
// keys its MAC is made under (kept in the shared store), and a person is signed in with one token
// request. Forged callbacks to either cost none, and /auth/start writes no row.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, request, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { CLIENT, type StartedProvider, startProvider } from '../e2e/provider.ts';
import { ProviderUser } from '../e2e/provider_user.ts';
import { type PaddockProcess, paddock } from '../support/process.ts';
import {
  admin,
  databaseUrl,
  dropDatabase,
  freshDatabase,
  postgresAvailable,
  sharedDatabaseEnv,
  SKIP_REASON,
} from '../support/postgres.ts';
import { freePort } from '../support/tls_fixture.ts';

const available = await postgresAvailable();

/** A balancer on `port`: the callback to `b`, everything else to `a`. */
async function balancer(port: number, a: number, b: number): Promise<Server> {
  const server = createServer((req, res) => {
    const target = (req.url ?? '').startsWith('/admin/callback') ? b : a;
    const upstream = request(
      { host: '127.0.0.1', port: target, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return server;
}

if (!available) {
  test(`sign-in states across two instances (skipped: ${SKIP_REASON})`, { skip: true }, () => undefined);
} else {
  describe('sign-in states across two instances on one database', () => {
    let database: string;
    let dir: string;
    let provider: StartedProvider;
    let front: Server | undefined;
    const instances: PaddockProcess[] = [];
    const ports = { a: 0, b: 0, front: 0 };
    let base = '';

    before(async () => {
      [ports.a, ports.b, ports.front] = [await freePort(), await freePort(), await freePort()];
      base = `http://127.0.0.1:${ports.front}`;
      database = await freshDatabase();
      dir = await mkdtemp(join(tmpdir(), 'paddock-multi-state-'));
      provider = await startProvider(await freePort(), `${base}/admin/callback`);
      front = await balancer(ports.front, ports.a, ports.b);
      const start = async (name: string, port: number) => {
        const p = paddock(['serve'], {
          PADDOCK_LISTEN: `127.0.0.1:${port}`,
          PADDOCK_BASE_URL: base,
          PADDOCK_DATA_DIR: join(dir, name),
          // A makes the seal key both are given.
          ...sharedDatabaseEnv(databaseUrl(database), dir),
          PADDOCK_ADMIN_PASSWORD: 'sign-in state instances password',
          PADDOCK_OIDC_ISSUER: provider.issuer,
          PADDOCK_OIDC_CLIENT_ID: CLIENT.id,
          PADDOCK_OIDC_CLIENT_SECRET: CLIENT.secret,
        });
        instances.push(p);
        await p.waitFor(/serving on/);
      };
      await start('a', ports.a);
      await start('b', ports.b);
    });
    after(async () => {
      for (const p of instances) p.child.kill('SIGTERM');
      await Promise.all(instances.map((p) => p.exited));
      front?.close();
      provider?.close();
      if (database) await dropDatabase(database);
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    test('a sign-in started on A is finished on B, with one token request', async () => {
      const before = provider.tokenRequests();
      const cookie = await new ProviderUser().signIn(base, 'alice');
      assert.match(cookie, /^service_admin=/);
      assert.equal(provider.tokenRequests() - before, 1);
      const [a, b] = instances.map((p) => p.output().stdout);
      assert.match(b ?? '', /"event":"login\.oidc\.succeeded"/, 'B signed the person in');
      assert.doesNotMatch(a ?? '', /"event":"login\.oidc\.succeeded"/);
    });

    test('1,000 requests to /auth/start on A and B: no row in the store', async () => {
      const rows = () =>
        admin(async (c) => Number((await c.query('SELECT count(*) AS n FROM oidc_states')).rows[0].n), database);
      const at = await rows();
      for (let i = 0; i < 1_000; i++) {
        const res = await fetch(`http://127.0.0.1:${i % 2 ? ports.a : ports.b}/auth/start`, { redirect: 'manual' });
        assert.equal(res.status, 303);
        await res.arrayBuffer();
      }
      assert.equal(await rows(), at);
    });

    test('forged callbacks to A and to B: 400 each, no token request', async () => {
      const before = provider.tokenRequests();
      for (let i = 0; i < 200; i++) {
        const state = randomBytes(32).toString('base64url');
        const res = await fetch(
          `http://127.0.0.1:${i % 2 ? ports.a : ports.b}/admin/callback?state=${state}&code=c${i}`,
          { headers: { cookie: `service_oidc=${state}.${randomBytes(32).toString('base64url')}` } },
        );
        assert.equal(res.status, 400);
        await res.arrayBuffer();
      }
      assert.equal(provider.tokenRequests() - before, 0);
    });
  });
}
