// How Fairway lays its data out in LevelDB (documented in docs/storage.md):
//
//   /registry/<group>/<resource>/<name>  → the stored value (codec + transformer output, so an
//                                          encrypted one starts `k8s:enc:…` as in etcd), followed by
//                                          an 8-byte big-endian trailer: the key's mod revision
//   /fairway/format                      → "fairway-leveldb-1"
//   /fairway/revision                    → the newest revision, decimal (written with every batch)
//   /fairway/acknowledged                → "1" once the directory keeps ACKNOWLEDGED-REVISION
//                                          (acknowledged-revision.ts): from then on it must be there
//   /fairway/log/<revision, 16 digits>   → the changes of one group commit, from that revision on
//                                          (msgpack): the recent event log, bounded, contiguous up
//                                          to the newest revision
//
// One log entry per group commit (not per change) keeps the number of LevelDB operations per write
// at one, like a bare put. Every version's bytes are written once: a log record names a put's key
// but not its value (that is in the data key while the version is current), and carries the
// previous value of an update or a delete. So a version that a later change replaced is found as
// that change's previous value, and recovery rebuilds each logged event with both of its states.
//
// `/fairway/` sorts before `/registry/`, so the two never interleave in a scan.

import { Packr } from 'msgpackr';
import type { BackendEvent, KeyVersion } from '../backend.ts';

export const FORMAT_KEY = '/fairway/format';
export const FORMAT_VALUE = 'fairway-leveldb-1';
export const REVISION_KEY = '/fairway/revision';
export const ACKNOWLEDGED_MARKER_KEY = '/fairway/acknowledged';
export const LOG_PREFIX = '/fairway/log/';

const TRAILER_BYTES = 8;
const TWO_TO_32 = 2 ** 32;

export function logKey(revision: number): string {
  return LOG_PREFIX + String(revision).padStart(16, '0');
}

export function revisionOfLogKey(key: string): number {
  const revision = Number(key.slice(LOG_PREFIX.length));
  if (!Number.isSafeInteger(revision) || revision <= 0) throw new LayoutError(`bad event log key ${JSON.stringify(key)}`);
  return revision;
}

/** The upper bound of a prefix scan: the prefix with its last character incremented. */
export function prefixEnd(prefix: string): string {
  return prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
}

export class LayoutError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LayoutError';
  }
}

export function withTrailer(value: Uint8Array, modRevision: number): Uint8Array {
  // allocUnsafe takes small buffers from Node's shared pool: no ArrayBuffer per write.
  const out = Buffer.allocUnsafe(value.length + TRAILER_BYTES);
  out.set(value, 0);
  const view = new DataView(out.buffer, out.byteOffset + value.length, TRAILER_BYTES);
  view.setUint32(0, Math.floor(modRevision / TWO_TO_32));
  view.setUint32(4, modRevision % TWO_TO_32);
  return out;
}

export function splitTrailer(key: string, stored: Uint8Array): { value: Uint8Array; modRevision: number } {
  if (stored.length < TRAILER_BYTES) throw new LayoutError(`value of ${key} is ${stored.length} bytes, shorter than its revision trailer`);
  const at = stored.length - TRAILER_BYTES;
  const view = new DataView(stored.buffer, stored.byteOffset + at, TRAILER_BYTES);
  const modRevision = view.getUint32(0) * TWO_TO_32 + view.getUint32(4);
  if (modRevision <= 0 || !Number.isSafeInteger(modRevision)) throw new LayoutError(`value of ${key} has a bad revision trailer (${modRevision})`);
  return { value: stored.subarray(0, at), modRevision };
}

type LogRecord = [revision: number, type: 'p' | 'd', key: string, prevModRevision: number, prevValue: Uint8Array | null];

// Plain msgpack (no records): the log must stay readable without any shared state.
const logPacker = new Packr({ useRecords: false, mapsAsObjects: true });

/** The log entry of one group commit; a put's own value is left out (see above). */
export function encodeLogEntry(events: readonly BackendEvent[]): Uint8Array {
  const records: LogRecord[] = events.map((e) => [e.modRevision, e.type === 'put' ? 'p' : 'd', e.key, e.prevModRevision, e.prevValue ?? null]);
  return logPacker.pack(records);
}

/** Decodes one group commit's changes; puts come back without `value` (see fillLogValues). */
export function decodeLogEntry(firstRevision: number, bytes: Uint8Array): BackendEvent[] {
  const bad = (why: string): LayoutError => new LayoutError(`event log entry ${firstRevision} ${why}`);
  let records: unknown;
  try {
    records = logPacker.unpack(bytes);
  } catch (error) {
    throw bad(`does not decode: ${(error as Error).message}`);
  }
  if (!Array.isArray(records) || records.length === 0) throw bad('is not a list of changes');
  let previous = firstRevision - 1;
  return records.map((record: unknown, index) => {
    if (!Array.isArray(record) || record.length !== 5) throw bad('has a malformed change');
    const [revision, type, key, prevModRevision, prevValue] = record as unknown[];
    if (typeof revision !== 'number' || (type !== 'p' && type !== 'd') || typeof key !== 'string' || typeof prevModRevision !== 'number') {
      throw bad('has a malformed change');
    }
    if (revision !== previous + 1 && (index === 0 || revision !== previous)) throw bad(`jumps from revision ${previous} to ${revision}`);
    previous = revision;
    const hasPrev = prevValue instanceof Uint8Array;
    if (type === 'd' && !hasPrev) throw bad(`has a delete of ${key} without its last value`);
    return {
      type: type === 'p' ? 'put' : 'delete',
      key,
      modRevision: revision,
      prevModRevision,
      prevValue: hasPrev ? prevValue : undefined,
    } satisfies BackendEvent;
  });
}

/**
 * Gives every logged put its value: the current data when it is still the key's version, else the
 * previous value recorded by the change that replaced it (always later, so always in the log tail).
 */
export function fillLogValues(log: readonly BackendEvent[], current: ReadonlyMap<string, KeyVersion>): BackendEvent[] {
  const versions = new Map<string, Uint8Array>();
  for (const e of log) if (e.prevValue !== undefined) versions.set(`${e.prevModRevision}@${e.key}`, e.prevValue);
  return log.map((e) => {
    if (e.type !== 'put' || e.value !== undefined) return e;
    const live = current.get(e.key);
    const value = live !== undefined && live.modRevision === e.modRevision ? live.value : versions.get(`${e.modRevision}@${e.key}`);
    if (value === undefined) throw new LayoutError(`event log entry ${e.modRevision}: no stored version of ${e.key} at that revision`);
    return { ...e, value };
  });
}
