// Rebuilding the watch cache's event windows from a backend's event log at open. Each logged change
// becomes a window event with the object before and after it; versions are decoded once and shared
// (the "after" of one change is the "before" of the next change of that key, and the newest ones
// are the loaded data). A change whose previous version cannot be found (its bytes were neither
// logged nor still current, or they can no longer be decrypted: a retired encryption key) cuts the
// window there: a window may only hold events it can show to any watcher, selector transitions
// included.

import type { BackendSnapshot } from './backend.ts';
import type { CachedObject } from './cached-object.ts';

export interface RecoveredEvent {
  readonly prefix: string;
  readonly event: { revision: number; name: string; current: CachedObject | undefined; previous: CachedObject | undefined };
}

/** undefined: the bytes exist but cannot be read (the version counts as unknown). */
export type DecodeVersion = (key: string, value: Uint8Array, modRevision: number) => Promise<CachedObject | undefined>;

/**
 * `loaded` maps `<modRevision>@<key>` to the objects loaded from the snapshot's records. Returns the
 * window start (every change above it is in `events`) and the events, oldest first.
 */
export async function recoverWindowEvents(
  snapshot: BackendSnapshot,
  loaded: ReadonlyMap<string, CachedObject>,
  keyPrefix: string,
  decode: DecodeVersion,
): Promise<{ startRevision: number; events: RecoveredEvent[] }> {
  const versions = new Map(loaded);
  const version = async (key: string, value: Uint8Array | undefined, modRevision: number): Promise<CachedObject | undefined> => {
    const id = `${modRevision}@${key}`;
    let cached = versions.get(id);
    if (cached === undefined) {
      // Without the bytes, a version is known only if an earlier log entry or the data holds it.
      if (value === undefined) return undefined;
      cached = await decode(key, value, modRevision);
      if (cached === undefined) return undefined;
      versions.set(id, cached);
    }
    return cached;
  };
  let startRevision = snapshot.logStartRevision;
  let events: RecoveredEvent[] = [];
  for (const e of snapshot.log) {
    if (e.modRevision > snapshot.revision || !e.key.startsWith(keyPrefix)) continue;
    const current = e.type === 'put' ? await version(e.key, e.value, e.modRevision) : undefined;
    const previous = e.prevModRevision > 0 ? await version(e.key, e.prevValue, e.prevModRevision) : undefined;
    if ((e.prevModRevision > 0 && previous === undefined) || (e.type === 'put' && current === undefined)) {
      startRevision = e.modRevision;
      events = [];
      continue;
    }
    const slash = e.key.lastIndexOf('/');
    events.push({ prefix: e.key.slice(0, slash + 1), event: { revision: e.modRevision, name: e.key.slice(slash + 1), current, previous } });
  }
  return { startRevision, events };
}
