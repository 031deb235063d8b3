// makeDirectories: parents made from the top down with the mode asked for, an existing tree left
// as it is, and a path no mkdir can make answered at once with its error instead of a spin
// (Node's recursive mkdir never returns for /proc/<missing>).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeDirectories } from './make-directories.ts';

test('makes every missing parent with the mode, and is a no-op on an existing directory', async () => {
  const base = await mkdtemp(join(tmpdir(), 'fairway-mkdirs-'));
  try {
    const deep = join(base, 'a', 'b', 'c');
    const umask = process.umask(0);
    try {
      await makeDirectories(deep, 0o700);
    } finally {
      process.umask(umask);
    }
    for (const dir of [join(base, 'a'), join(base, 'a', 'b'), deep]) assert.is((await stat(dir)).mode & 0o777, 0o700, dir);
    await makeDirectories(deep, 0o700);
    await writeFile(join(base, 'file'), '');
    await makeDirectories(join(base, 'file', 'x')).then(
      () => assert.unreachable('a file in the path'),
      (error: NodeJS.ErrnoException) => assert.is(error.code, 'ENOTDIR'),
    );
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('a directory a pseudo-filesystem refuses (/proc/<missing>/x) fails at once with ENOENT', async () => {
  const error = await makeDirectories('/proc/fairway-no-such-dir/x', 0o700).then(
    () => undefined,
    (e: NodeJS.ErrnoException) => e,
  );
  assert.ok(error !== undefined, 'it cannot succeed');
  assert.is(error!.code, 'ENOENT');
});

test.run();
