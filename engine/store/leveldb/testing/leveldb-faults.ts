// The storage faults the store must notice, done to a closed LevelDB directory as a disk or an
// operator would do them: shared by the backend, CLI and end-to-end tests.

import { readdirSync, readFileSync, statSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export type LevelDbFault = 'current-removed' | 'log-truncated' | 'log-flipped' | 'table-flipped';

export const LEVELDB_FAULTS: readonly LevelDbFault[] = ['current-removed', 'log-truncated', 'log-flipped', 'table-flipped'];

const numbered = (dir: string, ext: string): string[] =>
  readdirSync(dir)
    .filter((f) => f.endsWith(ext) && statSync(join(dir, f)).size > 0)
    .sort((a, b) => parseInt(a, 10) - parseInt(b, 10));

/** Applies `fault`; returns the file it damaged. Throws when the directory has no such file. */
export function injectLevelDbFault(dir: string, fault: LevelDbFault): string {
  if (fault === 'current-removed') {
    unlinkSync(join(dir, 'CURRENT'));
    return 'CURRENT';
  }
  const candidates = fault === 'table-flipped' ? numbered(dir, '.ldb') : numbered(dir, '.log');
  const file = candidates.at(-1);
  if (file === undefined) throw new Error(`${dir} has no non-empty ${fault === 'table-flipped' ? 'table' : 'log'} file for ${fault}`);
  const path = join(dir, file);
  if (fault === 'log-truncated') {
    truncateSync(path, Math.floor(statSync(path).size / 2));
    return file;
  }
  // 64 bytes from a third of the way in: inside the records, past the first block's header.
  const bytes = readFileSync(path);
  const at = Math.floor(bytes.length / 3);
  for (let i = at; i < Math.min(bytes.length, at + 64); i++) bytes[i] = bytes[i]! ^ 0xa5;
  writeFileSync(path, bytes);
  return file;
}
