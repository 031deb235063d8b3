// The read-only integrity check behind `fairway storage check` and `fairway storage repair`: the
// directory, every checksum of every LevelDB file (leveldb-files.ts), the acknowledged revision,
// and then the database as LevelDB reads it: every key, every value through the transformer and
// the codec, the event log, and the revision against the acknowledged one.
//
// LevelDB cannot open a database without changing it (it replays and deletes logs, writes a new
// manifest), so the database is opened through a snapshot: a sibling directory of hard links
// (copies where links fail) that is deleted afterwards. LevelDB only ever adds, renames and deletes
// files, so the originals are never written. The LOCK file is linked too, so a store that a running
// server holds is reported as in use instead of being read while it changes.

import { ClassicLevel } from 'classic-level';
import { copyFile, link, mkdtemp, readdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ACKNOWLEDGED_FILE, readAcknowledgedRevision } from '../../engine/store/leveldb/acknowledged-revision.ts';
import { decodeFrozenObject } from '../../engine/store/codec.ts';
import { describeDamage, inspectLevelDbFiles, type FileDamage } from '../../engine/store/leveldb/leveldb-files.ts';
import {
  FORMAT_KEY,
  FORMAT_VALUE,
  LOG_PREFIX,
  REVISION_KEY,
  decodeLogEntry,
  prefixEnd,
  revisionOfLogKey,
  splitTrailer,
} from '../../engine/store/leveldb/leveldb-layout.ts';
import { KEY_PREFIX, prefixOf } from '../../engine/store/store.ts';
import { hasEncryptedPrefix, identityTransformer, type Transformer } from '../../engine/store/transformers/transformer.ts';

export interface Finding {
  readonly ok: boolean;
  readonly name: string;
  readonly text: string;
}

export interface StoreInspection {
  readonly findings: Finding[];
  /** The newest revision the database holds, as LevelDB reads it (undefined if it could not be read). */
  readonly revision: number | undefined;
  readonly acknowledged: number | undefined;
  /** Objects per resource prefix. */
  readonly objects: Map<string, number>;
  /** Every readable key with its mod revision. */
  readonly keys: Map<string, number>;
  /** Every key the event log names, with its newest logged change. */
  readonly logged: Map<string, { revision: number; deleted: boolean }>;
  /** Damaged places in the LevelDB files. */
  readonly damage: readonly FileDamage[];
  /** Revision ranges missing inside the event log: changes that were written and are gone. */
  readonly missing: [number, number][];
  /** Keys whose stored value is unreadable (bad trailer, codec), with why. */
  readonly unreadable: { key: string; why: string }[];
  readonly inUse: boolean;
}

export const problems = (inspection: StoreInspection): Finding[] => inspection.findings.filter((f) => !f.ok);

/** Checks the LevelDB store at `location`; `transformer` reads encrypted values (else they are only counted). */
export async function inspectStore(location: string, transformer: Transformer | undefined): Promise<StoreInspection> {
  const findings: Finding[] = [];
  const say = (ok: boolean, name: string, text: string) => findings.push({ ok, name, text });
  const names = await readdir(location);
  const objects = new Map<string, number>();
  const keys = new Map<string, number>();
  const logged = new Map<string, { revision: number; deleted: boolean }>();
  const unreadable: { key: string; why: string }[] = [];
  const read = await readAcknowledgedRevision(location);
  const acknowledged = read.kind === 'ok' ? read.revision : undefined;
  if (read.kind === 'ok') say(true, 'acknowledged-revision', `revision ${read.revision} was the newest acknowledged (${ACKNOWLEDGED_FILE})`);
  else
    say(
      false,
      'acknowledged-revision',
      read.kind === 'missing' ? `${join(location, ACKNOWLEDGED_FILE)} is missing` : `${join(location, ACKNOWLEDGED_FILE)} is damaged: ${read.reason}`,
    );
  if (!names.includes('CURRENT')) {
    say(
      false,
      'directory',
      `${join(location, 'CURRENT')} is missing (${names.length} files in the directory): LevelDB cannot find its manifest; repair rebuilds it from ` +
        'the tables and logs',
    );
    return { findings, revision: undefined, acknowledged, objects, keys, logged, damage: [], missing: [], unreadable, inUse: false };
  }
  const files = await inspectLevelDbFiles(location, REVISION_KEY);
  say(
    files.damage.length === 0,
    'files',
    `${files.files} files, ${files.bytes} bytes: ${files.damage.length === 0 ? 'every checksum matches' : `${files.damage.length} damaged places`}`,
  );
  for (const d of files.damage) say(false, 'files', describeDamage(location, d));
  if (files.tornTail !== undefined) {
    const acknowledgedLost = acknowledged !== undefined && files.lastLoggedRevision !== undefined && files.lastLoggedRevision < acknowledged;
    say(
      !acknowledgedLost,
      'log-tail',
      `${describeDamage(location, files.tornTail)}` +
        `${acknowledgedLost ? ` after revision ${files.lastLoggedRevision}` : ' (a write cut short by a crash, never acknowledged)'}`,
    );
  }

  const snapshot = await mkdtemp(join(dirname(location), '.storage-check-'));
  try {
    // Regular files only: LevelDB's repair leaves what it could not use in a `lost/` directory.
    const regular = (await readdir(location, { withFileTypes: true })).filter((e) => e.isFile()).map((e) => e.name);
    for (const name of regular) {
      await link(join(location, name), join(snapshot, name)).catch(() => copyFile(join(location, name), join(snapshot, name)));
    }
    const db = new ClassicLevel<string, Uint8Array>(snapshot, { keyEncoding: 'utf8', valueEncoding: 'view', createIfMissing: false });
    try {
      await db.open();
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      if (cause?.code === 'LEVEL_LOCKED') {
        say(false, 'in-use', `${location} is in use: another process has it open (stop fairway serve first)`);
        return { findings, revision: undefined, acknowledged, objects, keys, logged, damage: files.damage, missing: [], unreadable, inUse: true };
      }
      say(false, 'open', `LevelDB cannot open ${location}: ${levelMessage(error)}`);
      return { findings, revision: undefined, acknowledged, objects, keys, logged, damage: files.damage, missing: [], unreadable, inUse: false };
    }
    try {
      const missing: [number, number][] = [];
      const revision = await readAll(db, transformer, say, { objects, keys, logged, unreadable, missing });
      if (acknowledged !== undefined) {
        say(
          revision >= acknowledged,
          'revision',
          revision >= acknowledged
            ? `the database holds revision ${revision}, at or past the acknowledged ${acknowledged}`
            : `the database holds revision ${revision}, but revision ${acknowledged} was acknowledged: the changes of revisions ${revision + 1}-` +
                `${acknowledged} are lost`,
        );
      }
      return { findings, revision, acknowledged, objects, keys, logged, damage: files.damage, missing, unreadable, inUse: false };
    } finally {
      await db.close();
    }
  } finally {
    await rm(snapshot, { recursive: true, force: true });
  }
}

type Say = (ok: boolean, name: string, text: string) => void;

/** Iterates the whole database; returns its revision (counter, newest trailer, newest log entry). */
type Found = Pick<StoreInspection, 'objects' | 'keys' | 'logged' | 'unreadable' | 'missing'>;

async function readAll(db: ClassicLevel<string, Uint8Array>, transformer: Transformer | undefined, say: Say, found: Found): Promise<number> {
  // A damaged table block under a meta key is a finding, like one under an object's key.
  const text = async (key: string): Promise<string | undefined> => {
    try {
      const bytes = await db.get(key);
      return bytes === undefined ? undefined : Buffer.from(bytes).toString('utf8');
    } catch (error) {
      say(false, 'read', `LevelDB cannot read ${key}: ${levelMessage(error)}`);
      return undefined;
    }
  };
  const format = await text(FORMAT_KEY);
  say(
    format === FORMAT_VALUE,
    'format',
    format === FORMAT_VALUE ? `storage format ${format}` : `storage format ${JSON.stringify(format ?? '(none)')}, expected ${FORMAT_VALUE}`,
  );
  const counterText = (await text(REVISION_KEY)) ?? '0';
  let revision = Number(counterText);
  if (!Number.isSafeInteger(revision) || revision < 0) {
    say(false, 'revision', `the revision counter ${REVISION_KEY} is ${JSON.stringify(counterText)}, not a number`);
    revision = 0;
  }
  revision = Math.max(revision, await readValues(db, transformer, say, found));
  return Math.max(revision, await readEventLog(db, say, found));
}

/** Every stored value through its trailer, the transformer and the codec; returns the newest trailer revision. */
async function readValues(
  db: ClassicLevel<string, Uint8Array>,
  transformer: Transformer | undefined,
  say: Say,
  { objects, keys, unreadable }: Found,
): Promise<number> {
  let revision = 0;
  let encrypted = 0;
  const failures: string[] = [];
  const count = (key: string) => objects.set(prefixOf(key), (objects.get(prefixOf(key)) ?? 0) + 1);
  let lastKey = '';
  try {
    for await (const [key, stored] of db.iterator({ gte: KEY_PREFIX, lt: prefixEnd(KEY_PREFIX) })) {
      lastKey = key;
      let value: Uint8Array;
      try {
        const split = splitTrailer(key, stored);
        value = split.value;
        revision = Math.max(revision, split.modRevision);
        keys.set(key, split.modRevision);
      } catch (error) {
        unreadable.push({ key, why: (error as Error).message });
        continue;
      }
      if (transformer === undefined && hasEncryptedPrefix(value)) {
        encrypted++;
        count(key);
        continue;
      }
      try {
        const { data } = await (transformer ?? identityTransformer).transformFromStorage(value, { key });
        decodeFrozenObject(data);
        count(key);
      } catch (error) {
        // A value the configured keys cannot read is reported, not removed (it may be a retired key).
        if (hasEncryptedPrefix(value)) failures.push(`${key}: ${(error as Error).message}`);
        else unreadable.push({ key, why: (error as Error).message });
      }
    }
  } catch (error) {
    // A table block LevelDB cannot read ends the iteration: what follows it is out of reach.
    say(false, 'read', `LevelDB stopped reading after ${JSON.stringify(lastKey)}: ${levelMessage(error)}`);
  }
  const total = [...objects.values()].reduce((a, b) => a + b, 0);
  const note = encrypted > 0 ? ` (${encrypted} encrypted ones only counted: pass --encryption-provider-config to decode them)` : '';
  say(unreadable.length === 0, 'values', `${total} objects decode${note}: ${formatCounts(objects)}`);
  for (const u of unreadable) say(false, 'values', `${u.key}: ${u.why}`);
  for (const f of failures) say(false, 'values', `cannot decrypt ${f}`);
  return revision;
}

/** The event log's entries; a hole inside it is changes that were lost. Returns its newest revision. */
async function readEventLog(db: ClassicLevel<string, Uint8Array>, say: Say, { logged, missing }: Found): Promise<number> {
  let entries = 0;
  let first: number | undefined;
  let newest = 0;
  try {
    for await (const [key, bytes] of db.iterator({ gte: LOG_PREFIX, lt: prefixEnd(LOG_PREFIX) })) {
      try {
        const events = decodeLogEntry(revisionOfLogKey(key), bytes);
        first ??= events[0]!.modRevision;
        // The log is trimmed from its oldest end only.
        if (entries > 0 && events[0]!.modRevision > newest + 1) missing.push([newest + 1, events[0]!.modRevision - 1]);
        newest = events.at(-1)!.modRevision;
        for (const e of events) logged.set(e.key, { revision: e.modRevision, deleted: e.type === 'delete' });
        entries++;
      } catch (error) {
        say(false, 'event-log', `${key}: ${(error as Error).message}`);
      }
    }
  } catch (error) {
    say(false, 'read', `LevelDB stopped reading the event log: ${levelMessage(error)}`);
  }
  say(true, 'event-log', entries === 0 ? 'empty' : `${entries} entries, revisions ${first}-${newest}`);
  for (const [from, to] of missing) say(false, 'event-log', `revisions ${from}-${to} are missing from the event log: their changes were written and are lost`);
  return newest;
}

const levelMessage = (error: unknown): string => (error as { cause?: Error }).cause?.message ?? (error as Error).message;

/** The report's lines, `[+]name text` / `[-]name text`, as kube-apiserver's verbose health checks. */
export function formatFindings(findings: readonly Finding[]): string {
  return findings.map((f) => `[${f.ok ? '+' : '-'}]${f.name} ${f.text}\n`).join('');
}

/** `prioritylevelconfigurations.flowcontrol.apiserver.k8s.io 8, …` from counts by key prefix. */
export function formatCounts(objects: ReadonlyMap<string, number>): string {
  const name = (prefix: string) => {
    const [group, resource] = prefix.slice(KEY_PREFIX.length, -1).split('/');
    return resource === undefined ? group! : `${resource}.${group}`;
  };
  return [...objects].map(([prefix, n]) => `${name(prefix)} ${n}`).join(', ') || 'none';
}
