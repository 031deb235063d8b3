// Files other programs read (kubeconfig, keys, certificates) are written to a temporary file in the
// same directory, flushed, then renamed over the target: a reader sees the old file or the new one,
// never half of one, and a crash leaves no truncated key behind. The temporary file is created with
// the final mode, so a secret is never readable by others, not even for a moment.
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

export async function writeFileAtomic(path: string, data: string | Uint8Array, mode: number): Promise<void> {
  const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temporary, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.chmod(mode); // open()'s mode passes through the umask; make it exact
    await handle.sync();
  } catch (error) {
    await handle.close();
    await rm(temporary, { force: true });
    throw error;
  }
  await handle.close();
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
