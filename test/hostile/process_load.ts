/** Drives a `paddock serve` process: sign-in, enrollment, and an upload load that records what was acknowledged. */
import { request } from 'node:http';
import { join } from 'node:path';

export const PROCESS_PASSWORD = 'a process test password';

export function serveEnv(dir: string, port: number): Record<string, string> {
  return {
    PADDOCK_LISTEN: `127.0.0.1:${port}`,
    PADDOCK_DATA_DIR: join(dir, 'data'),
    PADDOCK_ADMIN_PASSWORD: PROCESS_PASSWORD,
  };
}

/** Signs in, mints a token, enrolls one device; `view` lists the run ids a restarted server lacks. */
export async function signInAndEnroll(port: number) {
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: PROCESS_PASSWORD }),
    redirect: 'manual',
  });
  const cookie = (login.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
  const page = await (await fetch(`${base}/devices`, { headers: { cookie } })).text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
  const mint = await fetch(`${base}/enroll-tokens`, {
    method: 'POST',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf }),
  });
  const link = /(paddock:\/\/enroll\?[^<]+)</.exec(await mint.text())?.[1]?.replaceAll('&amp;', '&') ?? '';
  const enrolled = await fetch(`${base}/v1/enroll`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token: new URL(link).searchParams.get('token') }),
  });
  const { device, credential } = (await enrolled.json()) as { device: string; credential: string };
  /** Run ids among `ids` that the (restarted) server does not show, signing in afresh. */
  const view = async (ids: string[]) => {
    const again = await fetch(`${base}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ username: 'admin', password: PROCESS_PASSWORD }),
      redirect: 'manual',
    });
    const fresh = (again.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '';
    const missing: string[] = [];
    for (const id of ids) {
      const res = await fetch(`${base}/runs/${device}/${id}`, { headers: { cookie: fresh } });
      if (res.status !== 200 || !(await res.text()).includes(`payload of ${id}`)) missing.push(id);
    }
    return missing;
  };
  return { device, credential, view };
}

/** One upload over its own connection; resolves with the status, or 0 when the connection failed. */
function put(port: number, credential: string, id: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'PUT',
        path: `/v1/runs/${id}`,
        agent: false,
        headers: { authorization: `Bearer ${credential}`, 'x-privacy-level': 'full', 'content-type': 'text/plain' },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
        res.on('error', () => resolve(0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(`payload of ${id}\n`.repeat(20));
  });
}

/** Four clients (the most one device may run at once) uploading for up to `ms` (or until the server goes away): the ids acknowledged 201. */
export async function uploadLoad(port: number, credential: string, ms: number, prefix = 'r'): Promise<string[]> {
  const acknowledged: string[] = [];
  const until = Date.now() + ms;
  let n = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() < until) {
        const id = `${prefix}${n++}`;
        const status = await put(port, credential, id);
        if (status === 201) acknowledged.push(id);
        if (status === 0) return;
      }
    }),
  );
  return acknowledged;
}
