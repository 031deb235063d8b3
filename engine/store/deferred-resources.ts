// Resources whose stored values could not be decrypted at open because the KMS plugin was down.
// kube-apiserver keeps serving every other resource in that case and answers 500 for the affected
// one until the plugin is back; so does the store: the affected resource's raw records wait here,
// each use of the resource retries them (one attempt at a time, the failure going to the caller),
// and once every record decodes they are loaded into the watch cache.

import type { BackendEvent, BackendRecord } from './backend.ts';
import type { CachedObject } from './cached-object.ts';

interface Held {
  readonly records: Map<string, BackendRecord>;
  /** Bumped by every change from another replica, so a retry that raced one starts over. */
  version: number;
  loading: Promise<void> | undefined;
}

export class DeferredResources {
  private readonly held = new Map<string, Held>();

  get size(): number {
    return this.held.size;
  }

  /** Keeps a record of a resource that could not be read at open. */
  hold(prefix: string, record: BackendRecord): void {
    let held = this.held.get(prefix);
    if (held === undefined) this.held.set(prefix, (held = { records: new Map(), version: 0, loading: undefined }));
    held.records.set(record.key, record);
  }

  /** Another replica changed a deferred resource: keep its raw records current. False when not deferred. */
  absorb(prefix: string, event: BackendEvent): boolean {
    const held = this.held.get(prefix);
    if (held === undefined) return false;
    if (event.type === 'put') held.records.set(event.key, { key: event.key, value: event.value!, modRevision: event.modRevision });
    else held.records.delete(event.key);
    held.version++;
    return true;
  }

  /**
   * undefined when `prefix` is not deferred; else an attempt to decode all its records, which
   * rejects with the first failure or hands the decoded objects to `install` (and forgets them).
   */
  load(
    prefix: string,
    decode: (record: BackendRecord) => Promise<CachedObject>,
    install: (decoded: readonly CachedObject[]) => void,
  ): Promise<void> | undefined {
    const held = this.held.get(prefix);
    if (held === undefined) return undefined;
    held.loading ??= (async () => {
      for (;;) {
        const version = held.version;
        const decoded: CachedObject[] = [];
        for (const record of held.records.values()) decoded.push(await decode(record));
        if (version !== held.version) continue;
        this.held.delete(prefix);
        install(decoded);
        return;
      }
    })().finally(() => {
      held.loading = undefined;
    });
    return held.loading;
  }
}
