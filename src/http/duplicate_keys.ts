/**
 * JSON.parse keeps the last of two members with the same name (RFC 8259 section 4 leaves it to
 * the reader), so a body that says one thing to one parser and another thing to the next is read
 * without a word. Where a duplicate matters (a device's facts, docs/contract.md section 16), this
 * finds it in the text that JSON.parse has already accepted.
 */

interface Frame {
  /** The member names seen so far, only in the object at the path asked about. */
  keys: Set<string> | undefined;
  /** Whether this container lies on the path asked about (so its children may be the object). */
  onPath: boolean;
  depth: number;
  object: boolean;
  /** An object's next string is a member name. */
  expectKey: boolean;
  lastKey: string | undefined;
}

/**
 * The first member name given twice in the object at `path` (member names from the top-level
 * object down; `[]` is the top-level object itself), or undefined. `text` must be valid JSON.
 */
export function duplicateKey(text: string, path: readonly string[] = []): string | undefined {
  const stack: Frame[] = [];
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22) {
      // A string: find its closing quote, stepping over each escape.
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      const top = stack.at(-1);
      if (top?.object && top.expectKey) {
        top.expectKey = false;
        if (top.onPath) {
          const raw = text.slice(i + 1, j);
          const key = raw.includes('\\') ? (JSON.parse(text.slice(i, j + 1)) as string) : raw;
          top.lastKey = key;
          if (top.keys?.has(key)) return key;
          top.keys?.add(key);
        }
      }
      i = j;
    } else if (ch === 0x7b || ch === 0x5b) {
      const top = stack.at(-1);
      const depth = top === undefined ? 0 : top.depth + 1;
      // A container is on the path when its parent is and it is the parent's member named next.
      const onPath =
        top === undefined
          ? true
          : top.onPath && top.object && top.depth < path.length && top.lastKey === path[top.depth];
      const object = ch === 0x7b;
      stack.push({
        keys: onPath && object && depth === path.length ? new Set() : undefined,
        onPath: onPath && depth <= path.length,
        depth,
        object,
        expectKey: object,
        lastKey: undefined,
      });
    } else if (ch === 0x7d || ch === 0x5d) stack.pop();
    else if (ch === 0x2c) {
      const top = stack.at(-1);
      if (top?.object) top.expectKey = true;
    }
  }
  return undefined;
}

/**
 * The first member name given twice in one object of a JSON text (which JSON.parse has already
 * accepted, so the text is well formed), or undefined.
 */
export function repeatedName(text: string): string | undefined {
  // Per open bracket: the names seen when it is an object, undefined for an array.
  const stack: Array<Set<string> | undefined> = [];
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '"') {
      let end = i + 1;
      while (text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
      if (expectName) {
        const name = JSON.parse(text.slice(i, end + 1)) as string;
        const names = stack.at(-1);
        if (names?.has(name)) return name;
        names?.add(name);
        expectName = false;
      }
      i = end;
    } else if (ch === '{') {
      stack.push(new Set());
      expectName = true;
    } else if (ch === '[') {
      stack.push(undefined);
      expectName = false;
    } else if (ch === '}' || ch === ']') {
      stack.pop();
      expectName = false;
    } else if (ch === ',') expectName = stack.at(-1) !== undefined;
  }
  return undefined;
}
