// Every file an operator names in configuration (a flag's file, a kubeconfig and the certificates it
// names, an admission plugin's `path`, a static manifests directory's files, `config check`'s
// arguments) is read through here: only a regular file, and at most MAX_CONFIG_FILE_BYTES of it.
// A plain readFile of `/dev/urandom` reads until the heap is gone (5.4 GB in a minute), of a FIFO
// waits forever for a writer, and of a 10 GB file allocates 10 GB before anything can object.
//
// The file is opened non-blocking (a FIFO's open otherwise waits for a writer) and the kind and
// size are taken from the open descriptor, so what is checked is what is read. The read stops one
// byte past the limit: a file that grows while being read, or a /proc file whose size says 0, is
// still bounded. kube-apiserver reads these files with no limit; their real sizes are kilobytes (a
// token file with ten thousand users is about a megabyte), so 16 MiB refuses nothing real.
//
// Failures throw an Error whose message names the file; `code` is the errno for the system's own
// failures (ENOENT, EACCES...) as readFile would throw them, and one of the codes below for a
// refusal, so callers that translate errno values keep working.

import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';

export const MAX_CONFIG_FILE_BYTES = 16 * 1024 * 1024;

/** EISDIR as readFile throws it, so callers wording errno values as Go does word a directory so too. */
export type ConfigFileRefusal = 'EISDIR' | 'ENOTREGULAR' | 'ETOOLARGE';

export class ConfigFileError extends Error {
  constructor(
    readonly code: ConfigFileRefusal,
    message: string,
  ) {
    super(message);
  }
}

// O_NONBLOCK does not change reads of a regular file; it only keeps open() of a FIFO from waiting.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export async function readConfigFile(path: string, maxBytes: number = MAX_CONFIG_FILE_BYTES): Promise<Buffer> {
  const handle = await open(path, OPEN_FLAGS);
  try {
    checkKindAndSize(await handle.stat(), path, maxBytes);
    const bytes = boundedBytes(path, maxBytes);
    for (let chunk = bytes.next(); bytes.add(chunk, (await handle.read(chunk, 0, chunk.length, null)).bytesRead); chunk = bytes.next());
    return bytes.all();
  } finally {
    await handle.close();
  }
}

/** The same, for the synchronous checks (`config check`'s per-kind checks, kubeconfig loading). */
export function readConfigFileSync(path: string, maxBytes: number = MAX_CONFIG_FILE_BYTES): Buffer {
  const fd = openSync(path, OPEN_FLAGS);
  try {
    checkKindAndSize(fstatSync(fd), path, maxBytes);
    const bytes = boundedBytes(path, maxBytes);
    for (let chunk = bytes.next(); bytes.add(chunk, readSync(fd, chunk, 0, chunk.length, null)); chunk = bytes.next());
    return bytes.all();
  } finally {
    closeSync(fd);
  }
}

/** The chunks read so far; `add` says whether to read on (not at end of file) and refuses the read that passes the limit. */
function boundedBytes(path: string, maxBytes: number): { next(): Buffer; add(chunk: Buffer, bytesRead: number): boolean; all(): Buffer } {
  const chunks: Buffer[] = [];
  let total = 0;
  return {
    next: () => Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total)),
    add(chunk, bytesRead) {
      if (bytesRead === 0) return false;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(path, maxBytes);
      chunks.push(chunk.subarray(0, bytesRead));
      return true;
    },
    all: () => Buffer.concat(chunks, total),
  };
}

function checkKindAndSize(stats: Stats, path: string, maxBytes: number): void {
  if (stats.isDirectory()) throw new ConfigFileError('EISDIR', `${path} is a directory`);
  if (!stats.isFile()) throw new ConfigFileError('ENOTREGULAR', `${path} is not a regular file (${kindOf(stats)})`);
  if (stats.size > maxBytes) throw tooLarge(path, maxBytes);
}

function tooLarge(path: string, maxBytes: number): ConfigFileError {
  return new ConfigFileError('ETOOLARGE', `${path} is larger than ${maxBytes} bytes`);
}

function kindOf(stats: Stats): string {
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isFIFO()) return 'a named pipe';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}
