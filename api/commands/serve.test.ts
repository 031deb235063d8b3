import { spawn } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVE_FLAGS } from './serve-flags.ts';
import { listenProblem } from './serve.ts';
import { startServerProcess } from './testing/server-process.ts';

const LAUNCHER = join(dirname(fileURLToPath(import.meta.url)), '../fairway.mjs');

/** `guardMs`: a run that has not ended by then is killed (a hang, not a slow run). */
function fairway(args: string[], as: { uid?: number; gid?: number } = {}, guardMs = 0): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...as, timeout: guardMs, killSignal: 'SIGKILL' });
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
  assert.is(unknown.stderr, "Error: unknown flag: --no-such-flag\nRun 'fairway serve --help' for usage.\n");
  const badValue = await fairway(['serve', '--secure-port=https']);
  assert.is(badValue.code, 2);
  assert.is(badValue.stderr.split('\n')[0], 'Error: --secure-port: "https" is not a number');
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

test('port in use, data dir not a directory or not writable: exit 1 with one line naming the flag and what to do', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-serve-'));
  const holder = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  try {
    const port = (holder.address() as AddressInfo).port;
    const inUse = await fairway(['serve', `--data-dir=${dir}`, `--secure-port=${port}`, '--storage-backend=memory']);
    assert.is(inUse.code, 1);
    assert.match(inUse.stderr, `--secure-port ${port}: 127.0.0.1:${port} is already in use by another process`);
    assert.match(inUse.stderr, /choose a free port with --secure-port\n$/);

    const file = join(dir, 'a-file');
    await writeFile(file, '');
    const notDir = await fairway(['serve', `--data-dir=${file}`, '--storage-backend=memory']);
    assert.is(notDir.code, 1);
    assert.match(notDir.stderr, `--data-dir ${JSON.stringify(file)} is not a directory; give a directory`);
    const under = await fairway(['serve', `--data-dir=${join(file, 'data')}`, '--storage-backend=memory']);
    assert.match(under.stderr, `--data-dir ${JSON.stringify(join(file, 'data'))}: a part of the path is a file, not a directory`);

    // Root writes anywhere: the server runs as nobody to meet a directory it may not write.
    const readOnly = join(dir, 'read-only');
    await mkdir(readOnly, { mode: 0o555 });
    await chmod(dir, 0o755);
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};
    const denied = await fairway(['serve', `--data-dir=${readOnly}`, '--storage-backend=memory'], asUser);
    assert.is(denied.code, 1);
    assert.match(denied.stderr, `--data-dir ${JSON.stringify(readOnly)} is not writable by this user (permission denied)`);
  } finally {
    holder.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a --data-dir no mkdir can make (/proc/<missing>) is a clear error at once, not a spin that ignores SIGTERM', async () => {
  // Node's recursive mkdir never returns here, so the guard kills a hung server instead of hanging the suite.
  const run = await fairway(['serve', '--data-dir=/proc/fairway-missing/data', '--storage-backend=memory'], {}, 120_000);
  assert.is(run.code, 1, run.stderr);
  assert.match(run.stderr, '--data-dir "/proc/fairway-missing/data" could not be created (ENOENT: no such file or directory');
});

test('SIGTERM while start-up stalls (an etcd that accepts and never answers): the process says so and exits within the grace', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'fairway-serve-'));
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const etcd = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
    const child = spawn(process.execPath, [LAUNCHER, 'serve', `--data-dir=${dir}`, '--storage-backend=etcd3', `--etcd-servers=${etcd}`], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Once the certificates are written, start-up is waiting on the store.
    while (!stderr.includes('generated ca and serving certificate')) await new Promise((resolve) => setTimeout(resolve, 50));
    child.kill('SIGTERM');
    const guard = setTimeout(() => child.kill('SIGKILL'), 60_000);
    const code = await exited;
    clearTimeout(guard);
    assert.is(code, 1, stderr);
    assert.match(stderr, 'received SIGTERM during start-up; stopping once it is done (at most 5 s)');
    assert.match(stderr, 'start-up did not finish within 5 s of SIGTERM; exiting now');
  } finally {
    silent.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test('listen errors name --secure-port or --bind-address', () => {
  const error = (code: string) => Object.assign(new Error(code), { code });
  assert.match(listenProblem(error('EACCES'), '0.0.0.0', 443), /^--secure-port 443: permission denied to listen on 0\.0\.0\.0:443; .* with --secure-port$/);
  assert.match(listenProblem(error('EADDRNOTAVAIL'), '10.9.9.9', 6443), /^--bind-address 10\.9\.9\.9 is not an address of this machine; /);
  assert.match(listenProblem(error('EADDRINUSE'), '::1', 6443), /^--secure-port 6443: \[::1\]:6443 is already in use/);
});

test('--help lists every flag', async () => {
  const help = await fairway(['serve', '--help']);
  assert.is(help.code, 0);
  for (const spec of Object.values(SERVE_FLAGS)) assert.match(help.stdout, new RegExp(`--${spec.name}\\b`), spec.name);
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

test('under umask 000: data dir 0700, LevelDB files 0600; an open data dir gets a warning, a readable secret is made 0600 with one', async () => {
  const parent = await mkdtemp(join(tmpdir(), 'fairway-modes-'));
  const dataDir = join(parent, 'data');
  try {
    const server = await startServerProcess({ storageBackend: 'leveldb', dataDir, umask: 0 });
    try {
      assert.is(
        (
          await server.client.request('POST', '/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations', {
            body: { metadata: { name: 'private' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Reject' } } } },
          })
        ).status,
        201,
      );
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
    // Secrets left readable (a copy, a restore) are made private again, each with a warning.
    await chmod(join(dataDir, 'admin.token'), 0o644);
    await chmod(join(dataDir, 'pki', 'ca.key'), 0o644);
    const reopened = await startServerProcess({ storageBackend: 'leveldb', dataDir });
    try {
      assert.match(reopened.stderr(), new RegExp(`W\\d{4} .*--data-dir "${dataDir}" has mode 0777: other users can reach the store`));
      for (const secret of ['admin.token', 'pki/ca.key'])
        assert.match(
          reopened.stderr(),
          new RegExp(`W\\d{4} .*${join(dataDir, secret)} had mode 0644: other users could read this secret; its mode is now 0600`),
        );
      assert.not.match(reopened.stderr(), /apiserver\.key/);
    } finally {
      assert.is(await reopened.stop({ keepData: true }), 0);
    }
    assert.is(await mode(dataDir), 0o777, 'an existing directory keeps the mode its operator gave it');
    assert.is(await mode(join(dataDir, 'admin.token')), 0o600);
    assert.is(await mode(join(dataDir, 'pki', 'ca.key')), 0o600);
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
});

test.run();
