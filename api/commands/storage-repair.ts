// `fairway storage repair`: brings a damaged LevelDB store back to one the server opens, saying what
// was lost. In order: check (storage-inspect.ts; a store in use or an intact one is left alone), copy
// the store directory to a backup (into a temporary directory beside it, renamed once complete: a
// failed copy leaves no partial backup and the store as it was), rebuild each damaged table from
// its intact data blocks (table-salvage.ts: LevelDB's repair drops a table whose index block or
// footer is damaged, though its data blocks are intact), run LevelDB's own repair (it rebuilds the
// manifest from the tables and logs it can read), then make the result a Fairway store again: remove values that do not
// decode and keys that are not Fairway's, clear the event log (its history no longer matches the
// data: watches from before the repair get 410 and list again), and move the revision counter to at
// least the acknowledged revision, so that no resourceVersion a client may have seen is handed out
// again. Then check again.

import { ClassicLevel } from 'classic-level';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag } from '../../cli/flag-table.ts';
import { AcknowledgedRevision } from '../../engine/store/leveldb/acknowledged-revision.ts';
import type { FileDamage } from '../../engine/store/leveldb/leveldb-files.ts';
import { encodeSalvageLog } from '../../engine/store/leveldb/salvage-log.ts';
import { newestPerKey, salvageTable, type SalvagedEntry } from '../../engine/store/leveldb/table-salvage.ts';
import { ACKNOWLEDGED_MARKER_KEY, FORMAT_KEY, FORMAT_VALUE, LOG_PREFIX, REVISION_KEY, prefixEnd } from '../../engine/store/leveldb/leveldb-layout.ts';
import { KEY_PREFIX } from '../../engine/store/store.ts';
import { useOwnerOnlyUmask } from '../data-dir/data-dir.ts';
import { STORAGE_FLAGS, startStorageCommand } from './storage-flags.ts';
import { formatCounts, formatFindings, inspectStore, problems, type StoreInspection } from './storage-inspect.ts';

const STORAGE_REPAIR_FLAGS = {
  ...STORAGE_FLAGS,
  config: { ...STORAGE_FLAGS.config, description: 'decode encrypted values too (without it they are kept unchecked)' },
  backupDir: flag('string', 'backup-dir', '', 'where the copy goes; must not exist', { valueName: 'DIR', defaultText: 'DIR/store.backup-<UTC time>' }),
};

export const STORAGE_REPAIR_COMMAND: CommandSpec<typeof STORAGE_REPAIR_FLAGS> = {
  path: 'fairway storage repair',
  usage: 'fairway storage repair [--data-dir DIR] [--backup-dir DIR] [--encryption-provider-config FILE] [--api-domain DOMAIN]',
  description: `Repairs the LevelDB store under DIR/store after "fairway storage check" found it damaged. Run it
with the server stopped. It first copies DIR/store to the backup directory (all of it or nothing),
then rebuilds each damaged table from its intact data blocks, runs LevelDB's repair, removes what
still does not decode, clears the watch event log, and moves the revision counter to at least the
newest acknowledged revision, so that resourceVersions are never reused. It then checks the store
again and reports what was lost. An intact store is left as it is.`,
  flags: STORAGE_REPAIR_FLAGS,
  epilogue: `Exit status: 0 when the store is intact afterwards (what was lost is reported), 1 when it could not
be repaired or is in use, 2 for usage errors.`,
};

export const storageRepairCommand: Command = {
  spec: STORAGE_REPAIR_COMMAND,
  run: (args) => runStorageRepair(args, processOutput),
};

/** The LevelDB meta keys of Fairway's layout; any other key outside /registry/ is not Fairway's. */
const META_KEYS = new Set([FORMAT_KEY, REVISION_KEY, ACKNOWLEDGED_MARKER_KEY]);

/** Copies a directory tree (injected by tests to fail part way, as a full disk does). */
export type CopyDirectory = (from: string, to: string) => Promise<void>;

const copyTree: CopyDirectory = (from, to) => cp(from, to, { recursive: true, errorOnExist: true, force: false });

export async function runStorageRepair(args: string[], output: Output, now: () => Date = () => new Date(), copy: CopyDirectory = copyTree): Promise<number> {
  const command = await startStorageCommand(STORAGE_REPAIR_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  // The backup and the rebuilt tables hold the same secrets as the store: as private as the store.
  useOwnerOnlyUmask();
  const { location, transformer } = command;
  const { dataDir, backupDir } = command.values;
  const backup = backupDir !== '' ? backupDir : join(dataDir, `store.backup-${now().toISOString().replace(/[:.]/g, '-')}`);
  if (existsSync(backup)) {
    command.close();
    output.stderr(`Error: --backup-dir ${JSON.stringify(backup)} already exists; give a new directory\n`);
    return 1;
  }
  try {
    const before = await inspectStore(location, transformer);
    output.stdout(`checking ${location}\n${formatFindings(before.findings)}`);
    if (before.inUse) {
      output.stderr(`Error: ${location} is in use: stop fairway serve first\n`);
      return 1;
    }
    if (problems(before).length === 0) {
      output.stdout('storage check passed: nothing to repair\n');
      return 0;
    }
    try {
      await backUp(location, backup, copy);
    } catch (error) {
      output.stderr(`Error: backing up ${location} to ${backup} failed: ${(error as Error).message}; nothing was changed\n`);
      return 1;
    }
    output.stdout(`backed up ${location} to ${backup}\n`);
    let read: StoreInspection;
    let fixed: Fixed;
    let after: StoreInspection;
    try {
      for (const line of await rebuildDamagedTables(location, before.damage)) output.stdout(`${line}\n`);
      await ClassicLevel.repair(location);
      for (const line of await leveldbRepairLog(location)) output.stdout(`leveldb repair: ${line}\n`);
      read = await inspectStore(location, transformer);
      fixed = await makeFairwayStore(location, read, before.acknowledged);
      after = await inspectStore(location, transformer);
    } catch (error) {
      output.stderr(
        `Error: repairing ${location} failed: ${(error as { cause?: Error }).cause?.message ?? (error as Error).message}; the store as it was is in ` +
          `${backup}\n`,
      );
      return 1;
    }
    output.stdout(`checking ${location} again\n${formatFindings(after.findings)}`);
    output.stdout(lossReport(before, read, fixed, backup));
    if (problems(after).length > 0) {
      output.stdout(`storage repair failed: ${problems(after).length} problems remain; the store as it was is in ${backup}\n`);
      return 1;
    }
    output.stdout('storage repair done: the store opens again\n');
    return 0;
  } finally {
    command.close();
  }
}

interface Fixed {
  readonly removed: string[];
  readonly foreign: string[];
  readonly revision: number;
}

/** Removes what does not decode, clears the event log, sets the counter and the acknowledged file. */
async function makeFairwayStore(location: string, read: StoreInspection, acknowledged: number | undefined): Promise<Fixed> {
  const db = new ClassicLevel<string, Uint8Array>(location, { keyEncoding: 'utf8', valueEncoding: 'view', createIfMissing: false });
  await db.open();
  try {
    const foreign: string[] = [];
    for await (const key of db.keys()) {
      if (!key.startsWith(KEY_PREFIX) && !key.startsWith(LOG_PREFIX) && !META_KEYS.has(key)) foreign.push(key);
    }
    const revision = Math.max(read.revision ?? 0, acknowledged ?? 0);
    const batch = db.batch();
    for (const key of [...read.unreadable.map((u) => u.key), ...foreign]) batch.del(key);
    batch.put(FORMAT_KEY, Buffer.from(FORMAT_VALUE));
    batch.put(REVISION_KEY, Buffer.from(String(revision)));
    batch.put(ACKNOWLEDGED_MARKER_KEY, Buffer.from('1'));
    await batch.write({ sync: true });
    await db.clear({ gte: LOG_PREFIX, lt: prefixEnd(LOG_PREFIX) });
    await (await AcknowledgedRevision.open(location, revision)).close();
    return { removed: read.unreadable.map((u) => `${u.key} (${u.why})`), foreign, revision };
  } finally {
    await db.close();
  }
}

/** Copies the store into a temporary directory beside `backup` and renames it: all of it or nothing. */
async function backUp(location: string, backup: string, copy: CopyDirectory): Promise<void> {
  // The first directory made for it, if its parent did not exist: removed too if the copy fails.
  const made = await mkdir(dirname(backup), { recursive: true });
  let partial: string | undefined;
  try {
    partial = await mkdtemp(join(dirname(backup), `.${basename(backup)}.partial-`));
    await copy(location, partial);
    await rename(partial, backup);
  } catch (error) {
    const leftover = made ?? partial;
    if (leftover !== undefined) await rm(leftover, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Takes every damaged table out of the store (into lost/, as LevelDB's repair does with what it
 * cannot read) and writes the entries of its intact data blocks to a new log file, which LevelDB's
 * repair then turns back into a table. LevelDB's repair alone would drop a table whose index block
 * or footer is damaged, and copy a damaged data block as garbage (it does not verify checksums).
 */
async function rebuildDamagedTables(location: string, damage: readonly FileDamage[]): Promise<string[]> {
  const tables = [...new Set(damage.map((d) => d.file).filter((f) => /^\d+\.(ldb|sst)$/.test(f)))];
  if (tables.length === 0) return [];
  const lines: string[] = [];
  const entries: SalvagedEntry[] = [];
  await mkdir(join(location, 'lost'), { recursive: true });
  for (const table of tables) {
    const salvage = salvageTable(await readFile(join(location, table)));
    entries.push(...salvage.entries);
    const through = salvage.via === 'index' ? 'its index block' : 'a scan of its data blocks (its index block or footer is damaged)';
    const unread = salvage.skipped.map(([from, to]) => `${from}-${to}`).join(', ');
    lines.push(
      `rebuilt ${join(location, table)} from ${salvage.blocks} intact data blocks found through ${through}: ${salvage.entries.length} entries kept` +
        `${unread === '' ? '' : `; unreadable bytes ${unread}`}; the table itself is now in ${join(location, 'lost', table)}`,
    );
    await rename(join(location, table), join(location, 'lost', table));
  }
  const numbers = (await readdir(location)).map((n) => Number(/^(?:MANIFEST-)?(\d+)(?:\.(?:log|ldb|sst))?$/.exec(n)?.[1] ?? 0));
  const log = `${String(Math.max(0, ...numbers) + 1).padStart(6, '0')}.log`;
  await writeFile(join(location, log), encodeSalvageLog(newestPerKey(entries)), { flush: true });
  return lines;
}

/** What LevelDB's repair wrote to its info log about what it kept and dropped. */
async function leveldbRepairLog(location: string): Promise<string[]> {
  const text = await readFile(join(location, 'LOG'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => line.replace(/^\S+ \S+ /, '').trim())
    .filter((line) => /dropping|ignoring|entries|ops saved|Repaired|Archiving|orrupt|rror/.test(line));
}

function lossReport(before: StoreInspection, read: StoreInspection, fixed: Fixed, backup: string): string {
  const lines: string[] = [];
  const counts = (inspection: StoreInspection) => formatCounts(inspection.objects);
  lines.push(`objects as LevelDB read the damaged store: ${before.revision === undefined ? '(it could not be read)' : counts(before)}`);
  lines.push(`objects after the repair: ${counts(read)}`);
  const held = read.revision ?? 0;
  // The damaged store's event log says what each key's newest change was: compare with what is left.
  let named = 0;
  for (const [key, change] of before.logged) {
    const now = read.keys.get(key);
    if (!change.deleted && (now === undefined || now < change.revision)) {
      lines.push(`lost: ${key} at revision ${change.revision} (${now === undefined ? 'gone' : `back at revision ${now}`})`);
      named++;
    } else if (change.deleted && now !== undefined && now < change.revision) {
      lines.push(`back: ${key}, deleted at revision ${change.revision}, is there again at revision ${now}`);
      named++;
    }
  }
  for (const [from, to] of before.missing) lines.push(`lost: the changes of revisions ${from}-${to} (missing from the event log of the damaged store)`);
  if (before.acknowledged !== undefined && held < before.acknowledged) {
    lines.push(`lost: the changes of revisions ${held + 1}-${before.acknowledged} (acknowledged, no longer in the store)`);
  } else if (before.acknowledged === undefined) {
    lines.push('the newest acknowledged revision is unknown (no intact ACKNOWLEDGED-REVISION): a loss at the end cannot be bounded');
  } else if (before.missing.length === 0 && named === 0) {
    lines.push(`no acknowledged revision is missing (the store holds revision ${held}, acknowledged ${before.acknowledged})`);
  }
  for (const key of fixed.removed) lines.push(`removed a value that does not decode: ${key}`);
  for (const key of fixed.foreign) lines.push(`removed a key that is not Fairway's: ${JSON.stringify(key)}`);
  lines.push(`the revision counter is ${fixed.revision}: new writes get resourceVersions from ${fixed.revision + 1}`);
  lines.push('the watch event log was cleared: watches from before the repair get 410 Gone and list again');
  lines.push(`the store as it was is in ${backup}`);
  return lines.map((l) => `${l}\n`).join('');
}
