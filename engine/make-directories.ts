// `mkdir -p` for paths a user gives (--data-dir, --cert-dir, --out). Node's own recursive mkdir
// retries a component whose mkdir fails with ENOENT while its parent exists, which is what a
// pseudo-filesystem answers (/proc/nope): it loops forever in a thread-pool thread, the process
// spins at 100% CPU, and it cannot even exit on SIGTERM, as exiting waits for that thread. Here
// each missing directory is made once, from the top down, and the first failure is the answer.
import { mkdir, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** Makes `path` and its missing parents with `mode`; rejects with the first mkdir or stat error. */
export async function makeDirectories(path: string, mode = 0o777): Promise<void> {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      const info = await stat(dir);
      if (!info.isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR', path: dir });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(dir) === dir) throw error;
      missing.push(dir);
    }
  }
  for (const dir of missing.reverse()) {
    try {
      await mkdir(dir, { mode });
    } catch (error) {
      // Made meanwhile by someone else: fine if it is a directory now.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || !(await stat(dir)).isDirectory()) throw error;
    }
  }
}
