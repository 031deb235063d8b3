// The data directory holds the store, the admin token and kubeconfig and, by default, the CA's
// private key: nobody but the server's user may read it. Whatever the umask the server was started
// with, what it creates there is private: the directory 0700 and every file 0600 unless written
// with an explicit mode (certificates are 0644). LevelDB creates its tables itself, with 0644 less
// the umask, at any time (compactions), so the server runs under umask 077 from here on. A
// directory that already exists keeps its mode, as the operator chose it; one others can enter or
// read gets a warning.
import { chmod, mkdir, stat } from 'node:fs/promises';
import type { Logger } from './log.ts';

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
  let mode: number;
  try {
    mode = (await stat(dataDir)).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    await chmod(dataDir, PRIVATE_DIR_MODE);
    return;
  }
  if ((mode & 0o077) !== 0) {
    logger.warning(
      `--data-dir ${JSON.stringify(dataDir)} has mode ${formatMode(mode)}: other users can reach the store and the admin credentials in it; ` +
        `the recommended mode is ${formatMode(PRIVATE_DIR_MODE)} (chmod ${formatMode(PRIVATE_DIR_MODE).slice(1)} ${dataDir})`,
    );
  }
}
