// A console page that answers a bad value with itself (docs/contract.md section 22): what the
// tests read of it.
import assert from 'node:assert/strict';

/**
 * The message beside the field at fault on a refused page, after checking that the page is HTML
 * with status 400 and that the field is marked invalid and described by the message. `read` is
 * the body when it was read already.
 */
export async function refusedMessage(
  res: Response,
  where = '',
  read?: string,
): Promise<{ id: string; message: string; body: string }> {
  const body = read ?? (await res.text());
  assert.equal(res.status, 400, `${where}: ${body.slice(0, 200)}`);
  assert.match(res.headers.get('content-type') ?? '', /^text\/html/, where);
  const [, id = '', message = ''] = /<strong id="([^"]+)-error">([^<]*)<\/strong>/.exec(body) ?? [];
  assert.ok(id !== '', `${where}: a message beside a field`);
  const field = new RegExp(`<(?:input|select|textarea)[^>]*\\bid="${id}"[^>]*>`).exec(body)?.[0] ?? '';
  assert.match(field, /aria-invalid="true"/, `${where}: ${id} is marked invalid`);
  assert.match(field, new RegExp(`aria-describedby="(?:[^"]* )?${id}-error"`), `${where}: ${id} is described by it`);
  return { id, message, body };
}
