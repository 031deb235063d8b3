import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_CONFIG_FILE_BYTES, readConfigFile, readConfigFileSync } from './config-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'fairway-config-file-'));
const fifo = join(dir, 'fifo');
execFileSync('mkfifo', [fifo]);
const sparse = join(dir, 'sparse.yaml');
writeFileSync(sparse, '');
truncateSync(sparse, MAX_CONFIG_FILE_BYTES + 1);
const small = join(dir, 'small.yaml');
writeFileSync(small, 'kind: X\n');

/** Both readers, as `{code, message}` of what they threw (or the text they read). */
async function both(path: string, maxBytes?: number): Promise<unknown[]> {
  const outcome = (read: () => Buffer | Promise<Buffer>) =>
    Promise.resolve()
      .then(read)
      .then(
        (bytes) => bytes.toString('utf8'),
        (error: NodeJS.ErrnoException) => ({ code: error.code, message: error.message }),
      );
  return [await outcome(() => readConfigFile(path, maxBytes)), await outcome(() => readConfigFileSync(path, maxBytes))];
}

test('a regular file within the limit is read whole, by both readers', async () => {
  assert.equal(await both(small), ['kind: X\n', 'kind: X\n']);
  assert.equal(await both(small, 8), ['kind: X\n', 'kind: X\n'], 'exactly the limit is allowed');
});

test('a character device, a FIFO and a directory are refused before any read, naming the path', async () => {
  for (const [path, code, message] of [
    ['/dev/urandom', 'ENOTREGULAR', '/dev/urandom is not a regular file (a character device)'],
    ['/dev/zero', 'ENOTREGULAR', '/dev/zero is not a regular file (a character device)'],
    [fifo, 'ENOTREGULAR', `${fifo} is not a regular file (a named pipe)`],
    [dir, 'EISDIR', `${dir} is a directory`],
  ]) {
    const expected = { code, message };
    assert.equal(await both(path!), [expected, expected], path);
  }
});

test('a file larger than the limit is refused from its size, before reading it', async () => {
  const expected = { code: 'ETOOLARGE', message: `${sparse} is larger than ${MAX_CONFIG_FILE_BYTES} bytes` };
  assert.equal(await both(sparse), [expected, expected]);
  assert.equal(await both(small, 7), [
    { code: 'ETOOLARGE', message: `${small} is larger than 7 bytes` },
    { code: 'ETOOLARGE', message: `${small} is larger than 7 bytes` },
  ]);
});

test('a file whose size says 0 but holds more than the limit is cut off at the limit', async () => {
  // /proc files are regular files that report size 0.
  const expected = { code: 'ETOOLARGE', message: '/proc/self/status is larger than 16 bytes' };
  assert.equal(await both('/proc/self/status', 16), [expected, expected]);
});

test('a missing file is the system error, code and all, as readFile throws it', async () => {
  const [read, readSync] = (await both(join(dir, 'nope'))) as { code: string }[];
  assert.is(read!.code, 'ENOENT');
  assert.is(readSync!.code, 'ENOENT');
});

test.after(() => rmSync(dir, { recursive: true, force: true }));

test.run();
