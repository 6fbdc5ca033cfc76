/**
 * The floor of an upload over HTTP on PostgreSQL: a raw node:http server that does what an upload
 * cannot do without, and nothing of Paddock's. It hashes the bearer credential and finds its device
 * (from memory after the first lookup, as Paddock's credential cache does, compared in constant
 * time), reads the declared-length body, hashes it, and stores it with the same group commit as
 * Paddock's (the uploads of one event-loop turn in one statement, at most 128 in one and two
 * statements in flight); then answers 201. No router, no middleware, no web-standard Request, no
 * privacy ceiling, no webhook outbox, no last-seen.
 * Usage: upload_baseline_server.ts <postgres URL> <table>, where <table> is `minimal` (the table
 * pgbench inserts into: `bench_minimal`, a primary key and nothing else) or `runs` (Paddock's own,
 * with its indexes and triggers, a row as an upload writes it); prints its port once it listens.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';

const [url = '', table = 'minimal'] = process.argv.slice(2);
const pool = new pg.Pool({ connectionString: url, max: 10 });
const devices = new Map<string, { id: string; owner: string; hash: string }>();

const INSERT =
  table === 'runs'
    ? `INSERT INTO runs (device_id, id, owner, content_type, privacy, size, sha256, uploaded_at, body)
        SELECT d, i, o, 'text/plain', 'full', length(b), h, $6::bigint, b
        FROM unnest($1::text[], $2::text[], $3::bytea[], $4::text[], $5::text[]) AS u(d, i, b, o, h)
        ON CONFLICT DO NOTHING`
    : `INSERT INTO bench_minimal (device, id, body)
        SELECT * FROM unnest($1::text[], $2::text[], $3::bytea[]) ON CONFLICT DO NOTHING`;
const MAX_GROUP = 128;
const MAX_IN_FLIGHT = 2;

type Queued = { device: string; owner: string; id: string; body: Buffer; sha256: string; done: (ok: boolean) => void };
let queue: Queued[] = [];
let inFlight = 0;
let scheduled = false;

function schedule(): void {
  if (scheduled || queue.length === 0 || inFlight >= MAX_IN_FLIGHT) return;
  scheduled = true;
  setImmediate(() => {
    scheduled = false;
    void writeGroup();
    schedule();
  });
}

async function writeGroup(): Promise<void> {
  const group = queue.slice(0, MAX_GROUP);
  queue = queue.slice(MAX_GROUP);
  inFlight++;
  try {
    const columns = [group.map((g) => g.device), group.map((g) => g.id), group.map((g) => g.body)];
    await pool.query(
      INSERT,
      table === 'runs' ? [...columns, group.map((g) => g.owner), group.map((g) => g.sha256), Date.now()] : columns,
    );
    for (const g of group) g.done(true);
  } catch {
    for (const g of group) g.done(false);
  } finally {
    inFlight--;
    schedule();
  }
}

async function device(credential: string): Promise<{ id: string; owner: string } | undefined> {
  const hash = createHash('sha256').update(credential).digest('hex');
  let found = devices.get(hash);
  if (!found) {
    const { rows } = await pool.query<{ id: string; owner: string; credential_hash: string }>(
      'SELECT id, owner, credential_hash FROM devices WHERE credential_hash = $1 AND revoked_at IS NULL',
      [hash],
    );
    if (!rows[0]) return undefined;
    found = { id: rows[0].id, owner: rows[0].owner, hash: rows[0].credential_hash };
    devices.set(hash, found);
  }
  return timingSafeEqual(Buffer.from(found.hash), Buffer.from(hash)) ? found : undefined;
}

function body(req: IncomingMessage): Promise<Buffer> {
  const length = Number(req.headers['content-length']);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  return new Promise((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      chunk.copy(bytes, at);
      at += chunk.length;
    });
    req.on('end', () => (at === length ? resolve(bytes) : reject(new Error('short body'))));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer((req, res) => {
  void (async () => {
    const credential = /^Bearer ([A-Za-z0-9_-]+)$/.exec(req.headers.authorization ?? '')?.[1];
    const id = /^\/v1\/runs\/([A-Za-z0-9._-]{1,128})$/.exec(req.url ?? '')?.[1];
    if (req.method !== 'PUT' || !id || !credential) return send(res, 400, 'bad request\n');
    const found = await device(credential);
    if (!found) return send(res, 401, 'unknown credential\n');
    const bytes = await body(req);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const ok = await new Promise<boolean>((done) => {
      queue.push({ device: found.id, owner: found.owner, id, body: bytes, sha256, done });
      schedule();
    });
    send(res, ok ? 201 : 503, ok ? 'stored\n' : 'not stored\n');
  })().catch(() => send(res, 500, 'error\n'));
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void pool.end().then(() => process.exit(0));
});
