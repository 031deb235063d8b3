// What the LevelDB backend checks before it trusts a data directory, as etcd refuses to start on a
// damaged data dir rather than serve less than it acknowledged:
//
//   1. the directory: a new database is created only in a missing or empty directory. LevelDB with
//      `createIfMissing` would create one over a directory whose CURRENT file is gone, and then delete
//      every table of the old one as obsolete;
//   2. the files, before LevelDB opens them (opening replays the logs and deletes them): every
//      checksum of every log, table and the manifest (leveldb-files.ts);
//   3. the acknowledged revision (acknowledged-revision.ts): the store must hold at least the newest
//      revision it ever acknowledged. Checked first against the logs (a cut log names its file), and
//      again once the database is read.
//
// Each refusal is a StoreError naming the file, and the recovery (`hint`).

import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { ACKNOWLEDGED_FILE, readAcknowledgedRevision } from './acknowledged-revision.ts';
import { describeDamage, inspectLevelDbFiles, type LevelDbFiles } from './leveldb-files.ts';
import { REVISION_KEY } from './leveldb-layout.ts';
import { internalError, type StoreError } from '../store-errors.ts';

export const DEFAULT_RECOVERY_HINT =
  'run "fairway storage check" to see what is wrong, and "fairway storage repair" to repair it (it copies the directory first)';

export type DirectoryState = { kind: 'new' } | { kind: 'database' };

/** Whether `location` may hold a new database (missing or empty), holds one, or must be refused. */
export async function directoryState(location: string, hint: string): Promise<DirectoryState> {
  let names: string[];
  try {
    if (!(await stat(location)).isDirectory()) throw internalError('FW_ERR_STORE_OPEN_FAILED', `${location} is not a directory`);
    names = await readdir(location);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'new' };
    throw error;
  }
  if (names.length === 0) return { kind: 'new' };
  if (names.includes('CURRENT')) return { kind: 'database' };
  const shown = names.sort().slice(0, 6).join(', ') + (names.length > 6 ? ', …' : '');
  throw corrupt(
    location,
    `${join(location, 'CURRENT')} is missing, but the directory is not empty (${names.length} files: ${shown}); refusing to create a new database over it`,
    hint,
  );
}

export interface FileCheck {
  readonly files: LevelDbFiles;
  /** The acknowledged revision, when the file exists. */
  readonly acknowledged: number | undefined;
}

/** Checks the files of an existing database before LevelDB opens it. */
export async function checkDatabaseFiles(location: string, hint: string): Promise<FileCheck> {
  const files = await inspectLevelDbFiles(location, REVISION_KEY);
  if (files.damage.length > 0) {
    const more = files.damage.length > 1 ? ` (and ${files.damage.length - 1} more)` : '';
    throw corrupt(location, `${describeDamage(location, files.damage[0]!)}${more}`, hint);
  }
  const read = await readAcknowledgedRevision(location);
  if (read.kind === 'damaged') throw corrupt(location, `${join(location, ACKNOWLEDGED_FILE)} is damaged: ${read.reason}`, hint);
  const acknowledged = read.kind === 'ok' ? read.revision : undefined;
  const torn = files.tornTail;
  if (torn !== undefined && acknowledged !== undefined && files.lastLoggedRevision !== undefined && files.lastLoggedRevision < acknowledged) {
    throw corrupt(
      location,
      `${describeDamage(location, torn)}: its last intact write is revision ${files.lastLoggedRevision}, but revision ${acknowledged} was ` +
        `acknowledged (${join(location, ACKNOWLEDGED_FILE)}); acknowledged writes were lost`,
      hint,
    );
  }
  return { files, acknowledged };
}

/** The database as read must hold every acknowledged revision. */
export function behindError(location: string, revision: number, acknowledged: number, hint: string): StoreError {
  return corrupt(
    location,
    `the database holds revision ${revision}, but revision ${acknowledged} was acknowledged (${join(location, ACKNOWLEDGED_FILE)}); acknowledged ` +
      'writes were lost, and their resourceVersions must not be handed out again',
    hint,
  );
}

export function missingAcknowledgedError(location: string, hint: string): StoreError {
  return corrupt(location, `${join(location, ACKNOWLEDGED_FILE)} is missing; without it, lost writes cannot be told from none`, hint);
}

function corrupt(location: string, what: string, hint: string): StoreError {
  return internalError('FW_ERR_STORE_CORRUPT', `the database at ${location} is damaged: ${what}; ${hint}`);
}
