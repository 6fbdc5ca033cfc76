// `paddock serve` and `paddock check` with PADDOCK_AUDIT_SYSLOG (docs/contract.md section 13), as
// real processes against a real rsyslogd: a failed sign-in reaches the collector over TLS; bad
// settings stop the start with one line naming the variable (exit 2); check says whether the
// collector is reachable.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { SD_ID } from '../../src/audit/syslog_message.ts';
import { paddock } from '../support/process.ts';
import { collector, makePki, rsyslogMissing } from '../support/rsyslog.ts';
import { freePort } from '../support/tls_fixture.ts';

const missingTools = rsyslogMissing();

describe('paddock serve and check with an audit syslog collector', { skip: missingTools }, () => {
  test('serve sends a failed sign-in to the collector over TLS; check finds it reachable, then not', async () => {
    const scratch = await collector();
    const pki = await makePki(scratch.dir);
    const c = await collector(pki);
    await c.start();
    try {
      const env = {
        PADDOCK_LISTEN: '127.0.0.1:0',
        PADDOCK_DATA_DIR: join(scratch.dir, 'data'),
        PADDOCK_ADMIN_PASSWORD: 'syslog serve password',
        PADDOCK_AUDIT_SYSLOG: `tls://127.0.0.1:${c.port}`,
        PADDOCK_AUDIT_SYSLOG_CA: pki.caFile,
      };
      const check = paddock(['check'], env);
      assert.equal(await check.exited, 0, check.output().stdout);
      assert.match(
        check.output().stdout,
        new RegExp(
          `^ok {3}audit syslog collector: tls://127\\.0\\.0\\.1:${c.port} reachable, its certificate verified against PADDOCK_AUDIT_SYSLOG_CA$`,
          'm',
        ),
      );
      const serve = paddock(['serve'], env);
      const [, url] = await serve.waitFor(/serving on (http:\/\/\S+)/);
      const res = await fetch(`${url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ username: 'admin', password: 'not the password' }),
      });
      assert.equal(res.status, 401);
      const got = await c.waitFor((r) => r.some((m) => m.msgid === 'login.local.failed'));
      const failed = got.find((m) => m.msgid === 'login.local.failed');
      assert.equal(failed?.fields[SD_ID]?.account, 'local:admin');
      assert.equal(failed?.fields[SD_ID]?.detail, 'user=admin count=1');
      assert.ok(!JSON.stringify(got).includes('not the password'), 'never a secret');
      serve.child.kill('SIGTERM');
      assert.equal(await serve.exited, 0);
      assert.match(serve.output().stdout, /"event":"audit\.syslog_connected"/);
      await c.stop();
      const down = paddock(['check'], env);
      assert.equal(await down.exited, 1);
      assert.match(
        down.output().stdout,
        new RegExp(`^FAIL audit syslog collector: not reachable: tls://127\\.0\\.0\\.1:${c.port}: .*ECONNREFUSED`, 'm'),
      );
    } finally {
      await c.dispose();
      await scratch.dispose();
    }
  });
});

test('bad syslog settings: serve exits 2 with one line naming the variable', async () => {
  const port = await freePort();
  const notPem = join(tmpdir(), `paddock-not-pem-${port}.txt`);
  await writeFile(notPem, 'not a certificate\n');
  const cases: Array<[Record<string, string>, RegExp]> = [
    [
      { PADDOCK_AUDIT_SYSLOG: `udp://127.0.0.1:${port}` },
      /^paddock: PADDOCK_AUDIT_SYSLOG: must be tcp:\/\/ or tls:\/\/, not udp:\/\//,
    ],
    [{ PADDOCK_AUDIT_SYSLOG: 'tcp://127.0.0.1' }, /^paddock: PADDOCK_AUDIT_SYSLOG: must give the port/],
    [
      { PADDOCK_AUDIT_SYSLOG: 'tcp://127.0.0.1:70000' },
      /^paddock: PADDOCK_AUDIT_SYSLOG: port must be between 1 and 65535/,
    ],
    [{ PADDOCK_AUDIT_SYSLOG: 'tls://bad host:6514' }, /^paddock: PADDOCK_AUDIT_SYSLOG: must name a host/],
    [
      { PADDOCK_AUDIT_SYSLOG: `tls://127.0.0.1:${port}`, PADDOCK_AUDIT_SYSLOG_CA: notPem },
      /^paddock: PADDOCK_AUDIT_SYSLOG_CA: .* holds no PEM certificate/,
    ],
    [
      { PADDOCK_AUDIT_SYSLOG: `tls://127.0.0.1:${port}`, PADDOCK_AUDIT_SYSLOG_CA: '/nonexistent/ca.pem' },
      /^paddock: PADDOCK_AUDIT_SYSLOG_CA: cannot read \/nonexistent\/ca\.pem: ENOENT/,
    ],
    [
      { PADDOCK_AUDIT_SYSLOG: `tcp://127.0.0.1:${port}`, PADDOCK_AUDIT_SYSLOG_CA: notPem },
      /^paddock: PADDOCK_AUDIT_SYSLOG_CA: /,
    ],
  ];
  for (const [env, line] of cases) {
    const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: '/nonexistent/syslog', ...env });
    assert.equal(await p.exited, 2, JSON.stringify(env));
    const lines = p.output().stderr.trim().split('\n');
    assert.equal(lines.length, 1, p.output().stderr);
    assert.match(lines[0] ?? '', line);
  }
});
