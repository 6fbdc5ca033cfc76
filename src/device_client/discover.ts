/**
 * Optional discovery (specification items 6 and 7): asks `https://<server>/v1/discover` for the
 * address to connect to. Any failure means "proceed with the link's server name": discovery never
 * carries trust, since the pin check on the control connection decides.
 */
import { get } from 'node:https';
import type { LookupFunction } from 'node:net';

export const DISCOVERY_TIMEOUT_MS = 5_000;

export async function discoverControlUrl(
  server: string,
  opts: { ca?: string | undefined; lookup?: LookupFunction | undefined; timeoutMs?: number } = {},
): Promise<string | undefined> {
  try {
    const body = await new Promise<string>((resolve, reject) => {
      const req = get(
        `https://${server}/v1/discover`,
        {
          timeout: opts.timeoutMs ?? DISCOVERY_TIMEOUT_MS,
          signal: AbortSignal.timeout(opts.timeoutMs ?? DISCOVERY_TIMEOUT_MS),
          ...(opts.ca ? { ca: opts.ca } : {}),
          ...(opts.lookup ? { lookup: opts.lookup } : {}),
        },
        (res) => {
          if (res.statusCode !== 200) {
            res.resume();
            reject(new Error(`discovery answered ${res.statusCode}`));
            return;
          }
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            text += chunk;
            if (text.length > 65_536) req.destroy(new Error('discovery answer too large'));
          });
          res.on('end', () => resolve(text));
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('discovery timed out')));
      req.on('error', reject);
    });
    const doc = JSON.parse(body) as { control_url?: unknown };
    const url = typeof doc.control_url === 'string' ? new URL(doc.control_url) : undefined;
    return url?.protocol === 'https:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
