// The TLS profile (issue 23): Mozilla's intermediate, on both names and on the plain port's TLS.
// TLS 1.2 with ECDHE and AEAD suites only (no CBC: LUCKY13), and TLS 1.3; nothing older.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { connect, type ConnectionOptions } from 'node:tls';
import { loadConfig } from '../../src/config/config.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { type RunningServer, startServer } from '../../src/server/serve.ts';
import { freePort, type TlsFixture, tlsFixture } from '../support/tls_fixture.ts';

let fx: TlsFixture;
let tlsPort: number;
let plainPort: number;
const servers: RunningServer[] = [];

before(async () => {
  fx = await tlsFixture();
  tlsPort = await freePort();
  const start = async (env: Record<string, string>) => {
    const server = await startServer(loadConfig({ PADDOCK_ADMIN_PASSWORD: 'profile test password', ...env }), {
      logger: memoryLogger(),
      announce: () => undefined,
    });
    servers.push(server);
    return server;
  };
  await start({
    PADDOCK_LISTEN: `127.0.0.1:${tlsPort}`,
    PADDOCK_DATA_DIR: join(fx.dir, 'tls'),
    PADDOCK_BASE_URL: `https://admin.test:${tlsPort}`,
    PADDOCK_CONTROL_HOST: 'control.test',
    PADDOCK_TLS_CERT: fx.admin.certFile,
    PADDOCK_TLS_KEY: fx.admin.keyFile,
  });
  const plain = await start({ PADDOCK_LISTEN: '127.0.0.1:0', PADDOCK_DATA_DIR: join(fx.dir, 'plain') });
  plainPort = Number(new URL(plain.url).port);
});
after(() => Promise.all(servers.map((s) => s.close())));

/** The negotiated suite and version, or the handshake's failure. */
async function handshake(port: number, opts: ConnectionOptions): Promise<string> {
  const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...opts });
  try {
    await once(socket, 'secureConnect');
    return `${socket.getProtocol()} ${socket.getCipher().standardName}`;
  } catch (err) {
    return `refused: ${(err as NodeJS.ErrnoException).code}`;
  } finally {
    socket.destroy();
  }
}

const sides = () =>
  [
    ['the admin name', tlsPort, 'admin.test'],
    ['the control name', tlsPort, 'control.test'],
    ['the plain port', plainPort, undefined],
  ] as const;

test('CBC suites, suites without ECDHE and versions before TLS 1.2 are refused on every name', async () => {
  for (const [what, port, servername] of sides()) {
    const tls12 = { servername, maxVersion: 'TLSv1.2' } as const;
    for (const ciphers of [
      'ECDHE-ECDSA-AES128-SHA',
      'ECDHE-ECDSA-AES256-SHA',
      'ECDHE-ECDSA-AES128-SHA256',
      'ECDHE-ECDSA-AES256-SHA384',
    ]) {
      assert.match(await handshake(port, { ...tls12, ciphers }), /^refused: /, `${what}: ${ciphers}`);
    }
    // The same suites, with only the key exchange made static (no forward secrecy), are refused too.
    assert.match(await handshake(port, { ...tls12, ciphers: 'AES128-GCM-SHA256' }), /^refused: /, what);
    assert.match(
      await handshake(port, { servername, minVersion: 'TLSv1', maxVersion: 'TLSv1.1', ciphers: 'DEFAULT@SECLEVEL=0' }),
      /^refused: /,
      what,
    );
  }
});

test('TLS 1.2 with ECDHE and AES-GCM or ChaCha20-Poly1305, and TLS 1.3, are served on every name', async () => {
  for (const [what, port, servername] of sides()) {
    const tls12 = { servername, maxVersion: 'TLSv1.2' } as const;
    for (const [ciphers, name] of [
      ['ECDHE-ECDSA-AES128-GCM-SHA256', 'TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'],
      ['ECDHE-ECDSA-AES256-GCM-SHA384', 'TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384'],
      ['ECDHE-ECDSA-CHACHA20-POLY1305', 'TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256'],
    ]) {
      assert.equal(await handshake(port, { ...tls12, ciphers }), `TLSv1.2 ${name}`, what);
    }
    assert.match(await handshake(port, { servername }), /^TLSv1\.3 TLS_/, what);
  }
});
