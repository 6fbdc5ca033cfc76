// Every answer is in paddock_http_requests_total (issue 23), also those neither app makes: a 421
// for a Host of the other side, /healthz from the fast path, and what Node's parser refused.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { connect } from 'node:tls';
import { loadConfig } from '../../src/config/config.ts';
import { memoryLogger } from '../../src/log/logger.ts';
import { startServer } from '../../src/server/serve.ts';
import { freePort, httpsRequest, tlsFixture } from '../support/tls_fixture.ts';
import { tlsServerEnv } from '../support/tls_server.ts';

const TOKEN = 'a-metrics-token-for-every-answer-0123456789';

test('421, the health fast path and unreadable requests are counted with the routed answers', async () => {
  const fx = await tlsFixture();
  const port = await freePort();
  const admin = `https://admin.test:${port}`;
  const server = await startServer(
    loadConfig({
      ...tlsServerEnv(fx, port),
      PADDOCK_ADMIN_PASSWORD: 'every answer password',
      PADDOCK_METRICS_TOKEN: TOKEN,
    }),
    { logger: memoryLogger(), announce: () => undefined },
  );
  try {
    const ca = [fx.admin.certPem];
    const misdirected = await httpsRequest(`https://control.test:${port}/v1/enroll`, {
      ca: fx.control.certPem,
      method: 'POST',
      headers: { host: `admin.test:${port}` },
      servername: 'control.test',
    });
    assert.equal(misdirected.status, 421);
    for (let i = 0; i < 2; i++)
      assert.equal(
        (
          await httpsRequest(`${admin}/healthz`, {
            ca,
            headers: { host: `control.test:${port}` },
            servername: 'admin.test',
          })
        ).status,
        421,
      );
    assert.equal((await httpsRequest(`${admin}/healthz`, { ca })).status, 200);
    // HTTP/1.1 without Host: answered 400 by the listener itself.
    const socket = connect({ host: '127.0.0.1', port, servername: 'admin.test', ca: fx.admin.certPem });
    await once(socket, 'secureConnect');
    socket.end('GET / HTTP/1.1\r\n\r\n');
    let raw = '';
    socket.setEncoding('latin1').on('data', (d: string) => (raw += d));
    await once(socket, 'close');
    assert.match(raw, /^HTTP\/1\.1 400 /);

    const scrape = await httpsRequest(`${admin}/metrics`, { ca, headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(scrape.status, 200);
    const series = (labels: string) =>
      Number(new RegExp(`^paddock_http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(scrape.body)?.[1]);
    assert.equal(series('server="control",route="misdirected",method="POST",status="421"'), 1);
    assert.equal(series('server="console",route="misdirected",method="GET",status="421"'), 2);
    assert.equal(series('server="console",route="/healthz",method="GET",status="200"'), 1);
    assert.equal(series('server="none",route="unreadable",method="other",status="400"'), 1);
  } finally {
    await server.close();
  }
});
