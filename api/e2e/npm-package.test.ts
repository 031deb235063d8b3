// The published package, as a user meets it: `npm pack` of a clean copy of the tracked files (the
// pack builds dist/ there, never in this checkout), `npm install -g` of the tarball into a scratch
// prefix (dependencies from npm's cache where it has them), then the installed `fairway`: its help
// without building anything, and `fairway serve` answering the real kubectl. The package carries
// dist/ and not the sources, so the launcher must start from dist/ as it is.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../build.mjs';
import { kubectlFor } from '../data-dir/testing/kubectl.ts';
import { startServerProcess } from '../commands/testing/server-process.ts';

let work: string;
let installed: string;
let bin: string;

test.before(async () => {
  work = await mkdtemp(join(tmpdir(), 'fairway-package-'));
  const copy = join(work, 'copy');
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const file of files) {
    if (!existsSync(join(ROOT, file))) continue; // deleted in the work tree, not yet committed
    await mkdir(join(copy, file, '..'), { recursive: true });
    await cp(join(ROOT, file), join(copy, file));
  }
  await symlink(join(ROOT, 'node_modules'), join(copy, 'node_modules'), 'dir');
  const npm = (args: string[], cwd: string) => {
    const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
    if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${result.status}):\n${result.stdout}\n${result.stderr}`);
    return result;
  };
  npm(['pack', '--pack-destination', work, '--silent'], copy);
  const tarball = (await readdir(work)).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball !== undefined, 'npm pack wrote a tarball');
  const prefix = join(work, 'prefix');
  npm(['install', '--global', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', join(work, tarball!)], work);
  installed = join(prefix, 'lib', 'node_modules', 'fairway');
  bin = join(prefix, 'bin', 'fairway');
});

test.after(async () => {
  await rm(work, { recursive: true, force: true });
});

// The test runner's FAIRWAY_TEST=1 would send the launcher to the sources, which a package has not.
const asUser = { ...process.env, FAIRWAY_TEST: '0' };

test('the package carries dist/ and the launcher, not the sources or the tests', async () => {
  assert.ok(existsSync(join(installed, 'dist', 'main.js')));
  assert.ok(existsSync(join(installed, 'api', 'fairway.mjs')));
  assert.not.ok(existsSync(join(installed, 'api', 'commands', 'main.ts')), 'no TypeScript sources');
  assert.not.ok(existsSync(join(installed, 'engine')), 'no engine sources');
});

test('the installed fairway prints its help from dist/, building nothing', () => {
  const help = spawnSync(bin, ['--help'], { cwd: work, encoding: 'utf8', env: asUser });
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /^ {2}serve +\S/m);
  assert.is(help.stderr, '', 'no "could not build dist/" and no rebuild');
});

test('the installed fairway serve answers the real kubectl, and stops on SIGTERM', async () => {
  const server = await startServerProcess({ launcher: join(installed, 'api', 'fairway.mjs'), storageBackend: 'leveldb', env: { FAIRWAY_TEST: '0' } });
  try {
    const kubectl = kubectlFor(server.kubeconfigPath);
    const got = await kubectl(['get', 'prioritylevelconfigurations', '-o', 'name']);
    assert.is(got.code, 0, got.stderr);
    assert.match(got.stdout, /^prioritylevelconfiguration\.flowcontrol\.apiserver\.k8s\.io\/exempt$/m);
    assert.not.match(server.stderr(), /could not build dist|rebuilt dist/);
  } finally {
    assert.is(await server.stop(), 0);
  }
});

test.run();
