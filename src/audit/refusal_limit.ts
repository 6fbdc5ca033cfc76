/**
 * Refusals on the routes open without a credential (docs/contract.md section 23, "No
 * amplification"): each is logged, but audited, and so sent to webhooks and syslog, at most once
 * a minute per client address (IPv6 by its /64, as the throttle counts) and event, with the number
 * of refusals the row stands for (`count`). Without it, 2,000 forged logout tokens wrote 2,000
 * audit rows, kept for a year, in 0.6 s.
 *
 * The first refusal of a window is audited at once (`count` 1), so an alert sees the attack in its
 * first second; the others of that minute are counted, and their row (the last one's fields, with
 * `count`) is written when the minute has passed, which opens the next window. A window that
 * counted nothing is forgotten.
 *
 * Memory is bounded: at most REFUSAL_WINDOWS_MAX windows are kept. Once that many addresses are
 * tracked, a refusal from another address is counted in the event's one shared window, whose rows
 * name the client `*`: an attacker who rotates addresses grows neither the map nor the trail
 * beyond a row a minute per event for all of them together. Windows are per instance
 * (docs/decisions.md, issue 42).
 */
import type { AnyEvent, Fields } from '../events/catalogue.ts';
import { throttleKey } from '../throttle/throttle_key.ts';

/** A client address and event audit at most one row in this long. */
export const REFUSAL_WINDOW_MS = 60_000;
/** Windows kept at most (a few hundred bytes each): past this, new addresses share one per event. */
export const REFUSAL_WINDOWS_MAX = 4_096;
/** The client a row of the shared window names: addresses past REFUSAL_WINDOWS_MAX, together. */
export const MANY_CLIENTS = '*';

/** A row to audit: the event and its fields, `count` among them. */
export interface RefusalRow {
  event: AnyEvent;
  fields: Fields;
}

export interface RefusalLimit {
  /** The row to audit now for this refusal (its fields with `count`), or undefined: it is counted for later. */
  admit(event: AnyEvent, fields: Fields, now: number): Fields | undefined;
  /** The rows of the windows whose minute has passed by `now` (each opens the next window). */
  due(now: number): RefusalRow[];
  /** The rows of every window that counted something, whatever its minute; all windows are forgotten (shutdown). */
  drain(): RefusalRow[];
  /** Windows held (the bound's test). */
  size(): number;
}

interface Window {
  event: AnyEvent;
  start: number;
  /** Refusals counted since the window's row, and the fields of the last of them. */
  counted: number;
  last: Fields;
}

export function refusalLimit(windowMs = REFUSAL_WINDOW_MS, max = REFUSAL_WINDOWS_MAX): RefusalLimit {
  const windows = new Map<string, Window>();

  /** The window of this refusal: its address's, or the event's shared one once `max` are held. */
  function keyOf(event: AnyEvent, fields: Fields): { key: string; shared: boolean } {
    const client = typeof fields.client === 'string' ? throttleKey(fields.client) : '';
    const own = `${event.name} ${client}`;
    if (windows.has(own) || windows.size < max) return { key: own, shared: false };
    return { key: `${event.name} ${MANY_CLIENTS}`, shared: true };
  }

  const row = (w: Window, count: number): Fields => ({ ...w.last, count });

  return {
    admit(event, fields, now) {
      const { key, shared } = keyOf(event, fields);
      const last = shared ? { ...fields, client: MANY_CLIENTS } : fields;
      const w = windows.get(key);
      if (w !== undefined && now - w.start < windowMs) {
        w.counted += 1;
        w.last = last;
        return undefined;
      }
      // A new window; one whose minute passed before its row was carried hands its count on.
      const carried = w?.counted ?? 0;
      windows.set(key, { event, start: now, counted: 0, last });
      return { ...last, count: carried + 1 };
    },
    due(now) {
      const rows: RefusalRow[] = [];
      for (const [key, w] of windows) {
        if (now - w.start < windowMs) continue;
        if (w.counted === 0) {
          windows.delete(key);
          continue;
        }
        rows.push({ event: w.event, fields: row(w, w.counted) });
        w.start = now;
        w.counted = 0;
      }
      return rows;
    },
    drain() {
      const rows = [...windows.values()]
        .filter((w) => w.counted > 0)
        .map((w) => ({ event: w.event, fields: row(w, w.counted) }));
      windows.clear();
      return rows;
    },
    size: () => windows.size,
  };
}
