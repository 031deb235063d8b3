// The compiled tree (build.mjs): what `fairway` runs in production instead of the TypeScript
// sources. Built here into a scratch folder (never the checkout's dist/), then run the way the
// launcher runs it: help; a LevelDB server ready and serving and stopped cleanly, with a KMS v2
// plugin reached over gRPC and protobuf responses (both read .proto files from the bundle's
// place); `sim sweep` on a worker thread (the thread entry's twin), byte-identical to `sim run`;
// and the rule that decides when to rebuild.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT, build, isFresh } from '../../build.mjs';
import { startKmsPlugin } from '../../engine/kms/testing/plugin-process.ts';
import { encryptionConfig, kmsV2, markedFs, FS_PATH } from '../commands/testing/encryption-fixtures.ts';
import { startServerProcess } from '../commands/testing/server-process.ts';

const SCENARIO = fileURLToPath(new URL('../../sim/examples/queue-limit.yaml', import.meta.url));

let outdir: string;
let work: string;
/** Runs the build's `main` as api/fairway.mjs does with a fresh dist/. */
let runner: string;

test.before(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'fairway-dist-'));
  work = await mkdtemp(join(tmpdir(), 'fairway-dist-work-'));
  // Packages left out of the bundle are imported from the checkout's node_modules, as from dist/.
  await symlink(join(ROOT, 'node_modules'), join(outdir, 'node_modules'), 'dir');
  await build(ROOT, outdir);
  runner = join(outdir, 'run.mjs');
  await writeFile(runner, `const { main } = await import('./main.js');\nprocess.exitCode = await main(process.argv.slice(2));\n`);
});

test.after(async () => {
  await rm(outdir, { recursive: true, force: true });
  await rm(work, { recursive: true, force: true });
});

const run = (args: string[]) => spawnSync(process.execPath, [runner, ...args], { cwd: work, encoding: 'utf8' });

test('help lists every command; an unknown command is exit 2', () => {
  const help = run(['--help']);
  assert.is(help.status, 0, help.stderr);
  for (const command of ['config check', 'serve', 'sim run', 'sim sweep', 'storage check']) assert.match(help.stdout, new RegExp(`^  ${command} +\\S`, 'm'));
  assert.is(run(['frobnicate']).status, 2);
});

test('serve on LevelDB with a KMS v2 plugin: ready, a FlowSchema written through the plugin and read back (JSON and protobuf), SIGTERM exits 0', async () => {
  const plugin = await startKmsPlugin();
  try {
    const config = join(work, 'encryption.yaml');
    await writeFile(config, encryptionConfig([['flowschemas.flowcontrol.apiserver.k8s.io'], kmsV2('vault', plugin.endpoint)]));
    const server = await startServerProcess({ launcher: runner, storageBackend: 'leveldb', args: [`--encryption-provider-config=${config}`] });
    const created = await server.client.request('POST', FS_PATH, { body: markedFs('compiled', 'compiled-marker') });
    assert.is(created.status, 201, created.text);
    const read = await server.client.get(`${FS_PATH}/compiled`);
    assert.is(read.status, 200, read.text);
    assert.is(read.json().metadata.annotations.note, 'secret compiled-marker');
    // Protobuf messages come from the .proto files beside the bundle.
    const proto = await server.client.get(`${FS_PATH}/compiled`, { headers: { Accept: 'application/vnd.kubernetes.protobuf' } });
    assert.is(proto.status, 200, proto.text);
    assert.is(proto.headers['content-type'], 'application/vnd.kubernetes.protobuf');
    assert.ok(proto.bytes.includes(Buffer.from('compiled-marker')));
    assert.ok(
      plugin.calls().some((call) => call.startsWith('Encrypt')),
      plugin.calls().join('\n'),
    );
    assert.is(await server.stop(), 0, server.stderr());
    assert.match(server.stderr(), /shutdown complete/);
  } finally {
    await plugin.stop();
  }
});

test('sim sweep runs its simulation on a worker thread, byte-identical to sim run', async () => {
  const sweep = run(['sim', 'sweep', SCENARIO, '--seeds', '7', '--workers', '1', '--no-plots', '--no-suggestions', '--out', join(work, 'sweep')]);
  assert.is(sweep.status, 0, sweep.stderr);
  const single = run(['sim', 'run', SCENARIO, '--seed', '7', '--no-plots', '--no-suggestions', '--out', join(work, 'run')]);
  assert.is(single.status, 0, single.stderr);
  const swept = await readFile(join(work, 'sweep', 'baseline', 'seed-7', 'report.json'), 'utf8');
  assert.ok(swept.length > 0);
  assert.is(swept, await readFile(join(work, 'run', 'report.json'), 'utf8'));
});

test('a build is fresh until one of its inputs changes or its record is gone', async () => {
  assert.ok(isFresh(ROOT, outdir));
  const stampPath = join(outdir, '.build.json');
  const stamp = await readFile(stampPath, 'utf8');
  const { mtimes } = JSON.parse(stamp) as { mtimes: Record<string, number> };
  // The record names the sources the bundle read, the copied files and the build's own inputs.
  for (const input of [
    'api/commands/main.ts',
    'api/commands/serve.ts',
    'workers/worker-task.ts',
    'engine/kms/proto/kms-v2.proto',
    'workers/worker-entry.mjs',
    'build.mjs',
    'package-lock.json',
  ]) {
    assert.ok(Object.hasOwn(mtimes, input), input);
  }
  // As if api/commands/serve.ts had been edited since the build.
  await writeFile(stampPath, JSON.stringify({ mtimes: { ...mtimes, 'api/commands/serve.ts': mtimes['api/commands/serve.ts']! - 1 } }));
  assert.not.ok(isFresh(ROOT, outdir));
  // As if a source file the build read had been deleted.
  await writeFile(stampPath, JSON.stringify({ mtimes: { ...mtimes, 'api/no-such-file.ts': 1 } }));
  assert.not.ok(isFresh(ROOT, outdir));
  await rm(stampPath);
  assert.not.ok(isFresh(ROOT, outdir));
  await writeFile(stampPath, stamp);
  assert.ok(isFresh(ROOT, outdir));
});

test.run();
