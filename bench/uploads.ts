/** The upload load: 50 devices at once, 1 KiB each, every request a new run id. */
import { type LoadResult, load } from './load.ts';

export function uploadLoad(
  name: string,
  base: string,
  credentials: string[],
  opts: { duration: number; pid: number; prefix?: string },
): Promise<LoadResult> {
  const payload = Buffer.alloc(1024, 'u');
  let sequence = 0;
  return load(name, {
    connections: 50,
    duration: opts.duration,
    pid: opts.pid,
    url: base,
    requests: [
      {
        method: 'PUT',
        setupRequest: (req, ctx: object) => {
          const context = ctx as { credential?: string };
          context.credential ??= credentials[sequence % credentials.length];
          return {
            ...req,
            path: `/v1/runs/${opts.prefix ?? 'bench'}-${sequence++}`,
            headers: {
              authorization: `Bearer ${String(context.credential)}`,
              'x-privacy-level': 'full',
              'content-type': 'text/plain',
            },
            body: payload,
          };
        },
      },
    ],
  });
}
