// `paddock collections …` end to end (docs/contract.md sections 11 and 15): a real `paddock serve`
// process, devices enrolled and answering through the control API, and the real CLI as child
// processes with PADDOCK_URL and PADDOCK_TOKEN. Create by --device and by filters, list, show and
// cancel; --wait follows a collection until it closes, exiting 0 only when every device sent a run.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { consoleClient } from '../multi/client.ts';
import { paddock } from '../support/process.ts';

const PASSWORD = 'the collections cli test password';
let dir: string;
let base: string;
let token: string;
let stop: () => Promise<void>;
/** Enrolled in `before`: berlin one and two (site=berlin), paris (site=paris). */
const devices: Record<'berlin1' | 'berlin2' | 'paris', { device: string; credential: string }> = {} as never;

async function cli(args: string[], env: Record<string, string> = {}) {
  const p = paddock(args, { PADDOCK_URL: base, PADDOCK_TOKEN: token, ...env });
  const code = await p.exited;
  return { code, ...p.output() };
}

const api = async (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
  });

type Collection = { id: string; open: boolean; counts: Record<string, number> };

async function enroll(link: string, name: string) {
  const secret = new URL(link).searchParams.get('token');
  const res = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: secret, name }),
  });
  assert.equal(res.status, 201);
  return (await res.json()) as { device: string; credential: string };
}

/** The device's open requests (GET /v1/requests), as the device sees them. */
async function requestsOf(credential: string): Promise<Array<{ id: string; reason: string; privacy: string }>> {
  const res = await fetch(`${base}/v1/requests`, { headers: { authorization: `Bearer ${credential}` } });
  assert.equal(res.status, 200);
  return ((await res.json()) as { requests: Array<{ id: string; reason: string; privacy: string }> }).requests;
}

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'paddock-collections-cli-'));
  const serve = paddock(['serve'], {
    PADDOCK_LISTEN: '127.0.0.1:0',
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: PASSWORD,
  });
  base = (await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';
  stop = async () => {
    serve.child.kill('SIGTERM');
    await serve.exited;
  };
  token = await consoleClient(() => PASSWORD).accessToken(base, 'collections cli test');
  const mint = async (label: string) =>
    (
      JSON.parse((await cli(['enroll-tokens', 'mint', '--uses', '2', '--label', label, '--json'])).stdout) as {
        link: string;
      }
    ).link;
  const berlin = await mint('site=berlin');
  devices.berlin1 = await enroll(berlin, 'berlin one');
  devices.berlin2 = await enroll(berlin, 'berlin two');
  devices.paris = await enroll(await mint('site=paris'), 'paris');
});

after(async () => {
  await stop();
  await rm(dir, { recursive: true, force: true });
});

test('create by --device, list, show and cancel', async () => {
  const created = await cli([
    'collections',
    'create',
    '--device',
    devices.berlin1.device,
    '--device',
    devices.paris.device,
    '--privacy',
    'redacted',
    '--reason',
    'disk inventory',
    '--expires-in',
    '2h',
  ]);
  assert.equal(created.code, 0, created.stderr);
  const id = /^id: +(c_\S+)$/m.exec(created.stdout)?.[1] ?? '';
  assert.match(id, /^c_/);
  assert.match(created.stdout, /^privacy: +redacted$/m);
  assert.match(created.stdout, /^open: +true$/m);
  assert.match(
    created.stdout,
    /^counts: +pending=2,delivered=0,fulfilled=0,declined=0,expired=0,cancelled=0,skipped=0$/m,
  );
  const one = (await (await api(`/api/v1/collections/${id}`)).json()) as { created_at: string; expires_at: string };
  assert.equal(Date.parse(one.expires_at) - Date.parse(one.created_at), 2 * 3_600_000, '--expires-in 2h');
  // The devices see it, with its reason and level.
  assert.deepEqual(
    (await requestsOf(devices.paris.credential)).map((r) => [r.reason, r.privacy]),
    [['disk inventory', 'redacted']],
  );

  const listed = await cli(['collections', 'list']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /^ID +CREATED +BY +PRIVACY +STATE +FULFILLED +REASON\n/);
  assert.match(listed.stdout, new RegExp(`^${id} +20\\S+ +local:admin +redacted +open +0/2 +disk inventory$`, 'm'));
  const json = await cli(['collections', 'list', '--state', 'open', '--json']);
  assert.ok((JSON.parse(json.stdout) as { items: Collection[] }).items.some((c) => c.id === id));

  const shown = await cli(['collections', 'show', id]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, new RegExp(`^id: +${id}$`, 'm'));
  assert.match(shown.stdout, /\n\nREQUEST +DEVICE +NAME +STATE +SINCE +RUN OR REASON\n/);
  // paris fetched its request (delivered); berlin one has not yet (pending).
  assert.match(shown.stdout, new RegExp(`^r_\\d+ +${devices.paris.device} +paris +delivered +20\\S+ +-$`, 'm'));
  assert.match(shown.stdout, new RegExp(`^r_\\d+ +${devices.berlin1.device} +berlin one +pending +20\\S+ +-$`, 'm'));
  const pending = await cli(['collections', 'show', id, '--state', 'pending', '--json']);
  const both = JSON.parse(pending.stdout) as { collection: Collection; targets: { items: Array<{ device: string }> } };
  assert.equal(both.collection.id, id);
  assert.deepEqual(
    both.targets.items.map((t) => t.device),
    [devices.berlin1.device],
  );

  const cancelled = await cli(['collections', 'cancel', id]);
  assert.deepEqual(cancelled, { code: 0, stdout: `cancelled ${id}: 2/2 answered (cancelled 2), closed\n`, stderr: '' });
  assert.deepEqual(await requestsOf(devices.berlin1.credential), []);
  assert.match(
    (await cli(['collections', 'list', '--state', 'closed'])).stdout,
    new RegExp(`^${id} .* closed +0/2 `, 'm'),
  );
  const trail = await cli(['audit', '--event', 'collection.cancelled']);
  assert.match(trail.stdout, /collection\.cancelled +local:admin /);
});

test('create by filters: the device list filters, all of which must hold', async () => {
  const created = await cli([
    'collections',
    'create',
    '--label',
    'site=berlin',
    '--status',
    'active',
    '--privacy',
    'full',
    '--reason',
    'berlin only',
    '--json',
  ]);
  assert.equal(created.code, 0, created.stderr);
  const c = JSON.parse(created.stdout) as Collection;
  assert.equal(c.counts.pending, 2);
  const targets = (await (await api(`/api/v1/collections/${c.id}/targets`)).json()) as {
    items: Array<{ device: string }>;
  };
  assert.deepEqual(targets.items.map((t) => t.device).sort(), [devices.berlin1.device, devices.berlin2.device].sort());
  assert.equal((await cli(['collections', 'cancel', c.id])).code, 0);

  const nothing = await cli(['collections', 'create', '--q', 'no such device', '--privacy', 'full', '--reason', 'x']);
  assert.equal(nothing.code, 0, nothing.stderr);
  assert.match(nothing.stdout, /^open: +false$/m, 'a collection that reached nothing is closed at once');
});

test('usage mistakes exit 2 before anything is sent; the server names a refused field, exit 1', async () => {
  const before = ((await (await api('/api/v1/collections')).json()) as { items: unknown[] }).items.length;
  const ask = ['--privacy', 'full', '--reason', 'why'];
  for (const [args, says] of [
    [['--device', devices.paris.device, '--label', 'site=paris', ...ask], /give either --device or filters/],
    [ask, /name the devices with --device, or match them with --q, --owner, --status, --label or --fact/],
    [['--device', devices.paris.device, '--reason', 'why'], /--privacy is required/],
    [['--device', devices.paris.device, '--privacy', 'full'], /--reason is required/],
    [
      ['--device', devices.paris.device, ...ask, '--expires-in', '3600'],
      /--expires-in must be a positive whole number followed by s, m, h or d/,
    ],
    [['--device', devices.paris.device, ...ask, '--colour', 'red'], /unknown option --colour/],
  ] as const) {
    const refused = await cli(['collections', 'create', ...args]);
    assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
    assert.match(refused.stderr, says);
    assert.equal(refused.stdout, '');
  }
  const level = await cli([
    'collections',
    'create',
    '--device',
    devices.paris.device,
    '--privacy',
    'secret',
    '--reason',
    'x',
  ]);
  assert.equal(level.code, 1);
  assert.match(
    level.stderr,
    /^paddock collections: 400 bad field: privacy .*must be full, redacted or minimal \(field: privacy\)\n$/,
  );
  const short = await cli(['collections', 'create', '--device', devices.paris.device, ...ask, '--expires-in', '30s']);
  assert.equal(short.code, 1);
  assert.match(short.stderr, /\(field: expires_in\)/);
  const label = await cli(['collections', 'create', '--label', 'Site', ...ask]);
  assert.equal(label.code, 1);
  assert.match(label.stderr, /\(field: filter\.label\)/);
  assert.equal(((await (await api('/api/v1/collections')).json()) as { items: unknown[] }).items.length, before);
  const unknown = await cli(['collections', 'show', `c_${'A'.repeat(16)}`]);
  assert.deepEqual(
    [unknown.code, unknown.stderr],
    [1, 'paddock collections: 404 not found: no such collection in your scope\n'],
  );
});

test('--wait: cancelled before every device answered, exit 1', async () => {
  const p = paddock(
    ['collections', 'create', '--device', devices.berlin2.device, '--privacy', 'full', '--reason', 'wait', '--wait'],
    { PADDOCK_URL: base, PADDOCK_TOKEN: token },
  );
  const id = (await p.waitFor(/^(c_\S+): 0\/1 answered, 1 open$/m))[1] ?? '';
  assert.equal((await api(`/api/v1/collections/${id}/cancel`, { method: 'POST' })).status, 200);
  assert.equal(await p.exited, 1);
  const { stdout, stderr } = p.output();
  assert.match(stderr, new RegExp(`^${id}: 1/1 answered \\(cancelled 1\\), closed$`, 'm'));
  assert.match(stderr, /^paddock collections: not every device sent a run: /m);
  assert.match(stdout, /^open: +false$/m);
});

test('--wait: every device sent a run, exit 0', async () => {
  const p = paddock(
    [
      'collections',
      'create',
      '--device',
      devices.berlin1.device,
      '--device',
      devices.paris.device,
      '--privacy',
      'redacted',
      '--reason',
      'answer me',
      '--wait',
      '--json',
    ],
    { PADDOCK_URL: base, PADDOCK_TOKEN: token },
  );
  const id = (await p.waitFor(/^(c_\S+): 0\/2 answered, 2 open$/m))[1] ?? '';
  for (const [n, { credential }] of [devices.berlin1, devices.paris].entries()) {
    const [request] = (await requestsOf(credential)).filter((r) => r.reason === 'answer me');
    assert.ok(request);
    const res = await fetch(`${base}/v1/runs/answer-${n}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'minimal', 'x-collection': request.id },
      body: `answer ${n}`,
    });
    assert.equal(res.status, 201, await res.text());
  }
  assert.equal(await p.exited, 0, p.output().stderr);
  const { stdout, stderr } = p.output();
  assert.match(stderr, new RegExp(`^${id}: 2/2 answered \\(fulfilled 2\\), closed$`, 'm'));
  const closed = JSON.parse(stdout) as Collection;
  assert.deepEqual([closed.id, closed.open, closed.counts.fulfilled], [id, false, 2]);
});
