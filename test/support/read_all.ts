/** All the bytes of a stored run, concatenated. */
import type { StoredRun } from '../../src/domain/runs.ts';

export async function readAll(run: StoredRun | undefined): Promise<Uint8Array | undefined> {
  if (!run) return undefined;
  const chunks: Uint8Array[] = [];
  for await (const chunk of run.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}
