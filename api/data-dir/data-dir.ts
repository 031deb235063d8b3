// The data directory holds the store, the admin token and kubeconfig and, by default, the CA's
// private key: nobody but the server's user may read it. Whatever the umask the server was started
// with, what it creates there is private: the directory 0700 and every file 0600 unless written
// with an explicit mode (certificates are 0644). LevelDB creates its tables itself, with 0644 less
// the umask, at any time (compactions), so the server runs under umask 077 from here on. A
// directory that already exists keeps its mode, as the operator chose it; one others can enter or
// read gets a warning. A secret file in it (the admin token, the CA's and the serving key) is
// another matter: nothing but the server reads those, so one others can read (left by an older
// version, a copy, a restore from backup) is made 0600 again, with a warning saying so.
import { constants } from 'node:fs';
import { access, chmod, stat } from 'node:fs/promises';
import type { Logger } from '../log.ts';
import { makeDirectories } from '../../engine/make-directories.ts';

export const PRIVATE_DIR_MODE = 0o700;
/** Everything created from now on loses the group and other bits. */
const OWNER_ONLY_UMASK = 0o077;

export function formatMode(mode: number): string {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`;
}

/** For commands that write the store: files they create (LevelDB's included) are private. */
export function useOwnerOnlyUmask(): void {
  process.umask(OWNER_ONLY_UMASK);
}

/** Creates `dataDir` (0700) or checks an existing one; sets the process umask to 077. */
export async function preparePrivateDataDir(dataDir: string, logger: Logger): Promise<void> {
  useOwnerOnlyUmask();
  const flag = `--data-dir ${JSON.stringify(dataDir)}`;
  let mode: number;
  try {
    const info = await stat(dataDir);
    if (!info.isDirectory()) throw new Error(`${flag} is not a directory; give a directory (it is created when missing)`);
    mode = info.mode;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new Error(`${flag}: a part of the path is a file, not a directory; give a directory`);
    if (code === 'EACCES')
      throw new Error(`${flag} cannot be reached by this user (permission denied on a directory above it); give a directory this user can write`);
    if (code !== 'ENOENT') throw error;
    try {
      await makeDirectories(dataDir, PRIVATE_DIR_MODE);
    } catch (mkdirError) {
      throw new Error(`${flag} could not be created (${reason(mkdirError)}); give a directory this user can create or write, or create it first`);
    }
    await chmod(dataDir, PRIVATE_DIR_MODE);
    return;
  }
  try {
    await access(dataDir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new Error(
      `${flag} is not writable by this user (${reason(error)}); the server writes its store, certificates and credentials there: give a writable ` +
        'directory or change its owner or mode',
    );
  }
  if ((mode & 0o077) !== 0) {
    logger.warning(
      `${flag} has mode ${formatMode(mode)}: other users can reach the store and the admin credentials in it; ` +
        `the recommended mode is ${formatMode(PRIVATE_DIR_MODE)} (chmod ${formatMode(PRIVATE_DIR_MODE).slice(1)} ${dataDir})`,
    );
  }
}

/** A secret file others can read or write is made 0600, with a warning; a missing one is left to its writer. */
export async function keepSecretFilePrivate(path: string, logger: Logger): Promise<void> {
  let mode: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) return;
    mode = info.mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(path, SECRET_FILE_MODE);
  } catch (error) {
    logger.warning(
      `${path} has mode ${formatMode(mode)}: other users can read this secret, and its mode could not be changed (${reason(error)}); chmod 600 it`,
    );
    return;
  }
  logger.warning(`${path} had mode ${formatMode(mode)}: other users could read this secret; its mode is now ${formatMode(SECRET_FILE_MODE)}`);
}

const SECRET_FILE_MODE = 0o600;

const REASONS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'read-only file system',
  ENOTDIR: 'a part of the path is a file',
  ENOSPC: 'no space left',
};

function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  return (code !== undefined && Object.hasOwn(REASONS, code) ? REASONS[code] : undefined) ?? (error as Error).message;
}
