/** Runs the real `paddock` command as a child process, with its output collected for assertions. */
import { type ChildProcess, spawn } from 'node:child_process';
import { after } from 'node:test';

const bin = new URL('../../bin/paddock.js', import.meta.url).pathname;
const children: ChildProcess[] = [];
after(() => children.forEach((c) => c.kill('SIGKILL')));

export interface PaddockProcess {
  child: ChildProcess;
  exited: Promise<number | null>;
  output(): { stdout: string; stderr: string };
  /** Waits (up to 15 s) until `re` matches the stream; returns the match. */
  waitFor(re: RegExp, stream?: 'stdout' | 'stderr'): Promise<RegExpExecArray>;
}

export function paddock(args: string[], env: Record<string, string>, input?: string): PaddockProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d));
  child.stderr.on('data', (d: Buffer) => (stderr += d));
  if (input !== undefined) child.stdin.end(input);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const output = () => ({ stdout, stderr });
  const waitFor = async (re: RegExp, stream: 'stdout' | 'stderr' = 'stderr') => {
    for (let i = 0; i < 300; i++) {
      const m = re.exec(output()[stream]);
      if (m) return m;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`timed out waiting for ${re} in ${JSON.stringify(output())}`);
  };
  return { child, exited, output, waitFor };
}

/** Starts `paddock serve` and stops it (SIGTERM) once it serves, its store left as a server leaves it: its exit code. */
export async function serveOnce(env: Record<string, string>): Promise<number | null> {
  const p = paddock(['serve'], { PADDOCK_LISTEN: '127.0.0.1:0', ...env });
  await p.waitFor(/serving on/);
  p.child.kill('SIGTERM');
  return p.exited;
}
