// `npm start -- FLAGS` (the README's start command, extra flags passed through to `fairway serve`):
// a SIGTERM or SIGINT sent to the npm process reaches the server, which shuts down cleanly, so the
// port and the LevelDB lock are free once npm has exited. npm runs the script through `sh -c`,
// which would otherwise die alone and leave the server running.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClassicLevel } from 'classic-level';
import { ROOT } from '../../build.mjs';
import { killOnExit } from '../testing/kill-on-exit.ts';
import { freePort } from '../commands/testing/server-process.ts';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** npm itself: the one running this test when there is one, else the one on PATH. */
const npm = (args: string[]) =>
  process.env.npm_execpath?.endsWith('.js')
    ? spawn(process.execPath, [process.env.npm_execpath, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn('npm', args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });

/** Pids of every live descendant of `pid` (Linux /proc). */
function descendants(pid: number): number[] {
  const found: number[] = [];
  const visit = (parent: number) => {
    let children: string;
    try {
      children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8');
    } catch {
      return;
    }
    for (const child of children.trim().split(/\s+/).filter(Boolean).map(Number)) {
      found.push(child);
      visit(child);
    }
  };
  visit(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** /readyz's status code, 0 while nothing answers (the certificate is the server's own, not checked here). */
function readyz(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/readyz', agent: false, rejectUnauthorized: false }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', () => resolve(0));
    req.end();
  });
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`${signal} to \`npm start\` stops the server: port and LevelDB lock released`, async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'fairway-npm-start-'));
    const port = await freePort();
    const child = npm(['start', '--', '--secure-port', String(port), '--data-dir', dataDir, '--storage-backend', 'leveldb']);
    killOnExit(child);
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    let exitedYet = false;
    void exited.then(() => (exitedYet = true));
    let started: number[] = [];
    try {
      for (;;) {
        assert.not.ok(exitedYet, `npm start exited before the server was ready:\n${output}`);
        if ((await readyz(port)) === 200) break;
        await delay(100);
      }
      started = descendants(child.pid!);
      assert.ok(started.length > 0);
      child.kill(signal);
      // A liveness bound, not a speed check: an npm that never exits must fail the test, not hang it.
      const stopped = await Promise.race([exited.then(() => true), delay(60_000).then(() => false)]);
      assert.ok(stopped, `npm start still running 60 s after ${signal}:\n${output}`);
      // npm returns once its child has exited; give a process it left behind no benefit of the doubt.
      await delay(200);
      assert.equal(started.filter(alive), [], `processes still running after npm exited:\n${output}`);
      assert.ok(await portIsFree(port), `port ${port} still held`);
      const db = new ClassicLevel(join(dataDir, 'store'));
      await db.open();
      await db.close();
      assert.match(output, new RegExp(`received ${signal}, shutting down`));
      assert.match(output, /shutdown complete/);
    } finally {
      if (!exitedYet) child.kill('SIGKILL');
      for (const pid of started.filter(alive)) process.kill(pid, 'SIGKILL');
      await rm(dataDir, { recursive: true, force: true });
    }
  });
}

test.run();
