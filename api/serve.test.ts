import { spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVE_FLAGS } from './flags.ts';
import { startServerProcess } from './testing/server-process.ts';

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), 'fairway.mjs');

function fairway(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

test('bad flags: one line naming the flag, exit code 2', async () => {
  const unknown = await fairway(['serve', '--no-such-flag']);
  assert.is(unknown.code, 2);
  assert.is(unknown.stderr, 'Error: unknown flag: --no-such-flag\n');
  const badValue = await fairway(['serve', '--secure-port=https']);
  assert.is(badValue.code, 2);
  assert.is(badValue.stderr.trim().split('\n').length, 1);
  assert.match(badValue.stderr, /--secure-port/);
});

test('--apf-work-estimator-config-file: a bad value stops the server with one line naming the file and the field', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-serve-'));
  try {
    const file = join(dir, 'estimator.yaml');
    await writeFile(file, 'listWorkEstimatorConfig:\n  objectsPerSeat: -1\n');
    const run = await fairway(['serve', `--data-dir=${dir}`, '--secure-port=1', '--storage-backend=memory', `--apf-work-estimator-config-file=${file}`]);
    assert.is(run.code, 1);
    assert.match(run.stderr, `${file}: listWorkEstimatorConfig.objectsPerSeat: Invalid value: -1: must be a number greater than 0`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('--help lists every flag', async () => {
  const help = await fairway(['serve', '--help']);
  assert.is(help.code, 0);
  for (const spec of SERVE_FLAGS) assert.match(help.stdout, new RegExp(`--${spec.name}\\b`), spec.name);
});

test('a restart on the same data dir keeps objects, the CA and the admin token', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'fairway-restart-'));
  try {
    const first = await startServerProcess({ storageBackend: 'leveldb', dataDir });
    let created;
    try {
      created = await first.client.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', {
        body: { metadata: { name: 'kept' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
      });
      assert.is(created.status, 201);
      assert.is((await stat(join(dataDir, 'admin.token'))).mode & 0o777, 0o600);
      assert.is((await stat(join(dataDir, 'admin.kubeconfig'))).mode & 0o777, 0o600);
    } finally {
      assert.is(await first.stop(), 0);
    }
    const second = await startServerProcess({ storageBackend: 'leveldb', dataDir });
    try {
      assert.is(second.token, first.token);
      assert.is(second.caPem, first.caPem);
      const kept = await second.client.get('/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations/kept');
      assert.is(kept.status, 200);
      assert.is(kept.json().metadata.uid, created.json().metadata.uid);
    } finally {
      assert.is(await second.stop(), 0);
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('under umask 000 the data dir is created 0700 and every LevelDB file 0600; an existing open data dir gets a warning', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'fairway-modes-'));
  const dataDir = join(parent, 'data');
  try {
    const server = await startServerProcess({ storageBackend: 'leveldb', dataDir, umask: 0 });
    try {
      assert.is((await server.client.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', { body: { metadata: { name: 'private' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } } })).status, 201);
    } finally {
      assert.is(await server.stop({ keepData: true }), 0);
    }
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    assert.is(await mode(dataDir), 0o700, 'data dir');
    assert.is(await mode(join(dataDir, 'store')), 0o700, 'store dir');
    const files = await readdir(join(dataDir, 'store'));
    assert.ok(files.some((f) => f.endsWith('.log')) && files.includes('CURRENT'), files.join(' '));
    for (const file of files) assert.is(await mode(join(dataDir, 'store', file)), 0o600, `store/${file}`);
    assert.is(await mode(join(dataDir, 'admin.token')), 0o600);
    assert.is(await mode(join(dataDir, 'pki', 'ca.key')), 0o600);
    assert.not.match(server.stderr(), /--data-dir/);

    await chmod(dataDir, 0o777);
    const reopened = await startServerProcess({ storageBackend: 'leveldb', dataDir });
    try {
      assert.match(reopened.stderr(), new RegExp(`W\\d{4} .*--data-dir "${dataDir}" has mode 0777: other users can reach the store`));
    } finally {
      assert.is(await reopened.stop({ keepData: true }), 0);
    }
    assert.is(await mode(dataDir), 0o777, 'an existing directory keeps the mode its operator gave it');
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test.run();
