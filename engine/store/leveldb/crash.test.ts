// Durability under SIGKILL: a child process (testing/crash-child.ts) writes and acknowledges
// objects on LevelDB; we kill it at 20 random points (by acknowledged-write count plus a short
// random delay, from a fixed seed), reopen the store each time and check that every acknowledged
// write is there, that no value is corrupt, and that the revision never goes backwards.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { SimClock } from '../../sim-clock.ts';
import { createPrng } from '../../random.ts';
import type { KubeObject } from '../../resources/types.ts';
import { createLevelDbBackend } from './leveldb-backend.ts';
import { createStore } from '../store.ts';
import { isStoreError } from '../store-errors.ts';
import { payloadSum } from './testing/crash-payload.ts';
import { PLC } from '../testing/suite-kit.ts';

const CHILD = fileURLToPath(new URL('./testing/crash-child.ts', import.meta.url));
const KILLS = 20;
const SEED = 'crash-test-1';

interface Expectation {
  version: number;
  rv: number;
  /** 'maybe' once a delete was sent but not acknowledged. */
  deleted: 'no' | 'maybe' | 'yes';
}

/** Runs the child until `killAfterAcks` writes are acknowledged, then SIGKILLs it. */
function runChild(dir: string, run: number, killAfterAcks: number, delayMs: number, expect: Map<string, Expectation>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, String(run), SEED], { stdio: ['ignore', 'pipe', 'pipe'] });
    let acks = 0;
    let stderr = '';
    let killing = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    createInterface({ input: child.stdout }).on('line', (line) => {
      const [kind, name, a, b] = line.split(' ');
      if (kind === 'put') expect.set(name!, { version: Number(a), rv: Number(b), deleted: 'no' });
      else if (kind === 'deleting') expect.get(name!)!.deleted = 'maybe';
      else if (kind === 'deleted') expect.set(name!, { ...expect.get(name!)!, rv: Number(a), deleted: 'yes' });
      else return;
      if (++acks >= killAfterAcks && !killing) {
        killing = true;
        setTimeout(() => child.kill('SIGKILL'), delayMs);
      }
    });
    child.on('error', reject);
    // 'close', not 'exit': lines the child wrote before it died may still be in the pipe at 'exit',
    // and an acknowledged delete read after the store was reopened would look like a lost write.
    child.on('close', (code, signal) => {
      if (signal === 'SIGKILL') resolve(acks);
      else reject(new Error(`crash child exited by itself (code ${code}, signal ${signal}):\n${stderr}`));
    });
  });
}

test('every acknowledged write survives SIGKILL at 20 points; values intact; revision monotonic', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-crash-'));
  const prng = createPrng(SEED);
  const expect = new Map<string, Expectation>();
  let lastRevision = 0;
  try {
    for (let run = 0; run < KILLS; run++) {
      const acks = await runChild(dir, run, 1 + prng.int(300), prng.int(4), expect);
      assert.ok(acks > 0, `run ${run}: the child acknowledged nothing`);
      const store = createStore({ backend: createLevelDbBackend({ location: dir }), clock: new SimClock() });
      await store.open(); // fails if any value does not decode
      const revision = store.revision();
      const newestAcked = Math.max(...[...expect.values()].map((e) => e.rv));
      assert.ok(revision >= lastRevision, `run ${run}: revision went back from ${lastRevision} to ${revision}`);
      assert.ok(revision >= newestAcked, `run ${run}: revision ${revision} is behind acknowledged ${newestAcked}`);
      lastRevision = revision;
      const list = await store.for(PLC).list();
      const found = new Map(list.items.map((o) => [o.metadata!.name!, o]));
      for (const object of list.items) {
        const spec = object.spec as { payload: string; sum: string };
        assert.is(spec.sum, payloadSum(spec.payload), `run ${run}: ${object.metadata?.name} has a corrupt payload`);
      }
      for (const [name, e] of expect) {
        const object: KubeObject | undefined = found.get(name);
        if (e.deleted === 'yes') assert.is(object, undefined, `run ${run}: acknowledged delete of ${name} was lost`);
        else if (object === undefined) assert.is(e.deleted, 'maybe', `run ${run}: acknowledged write of ${name} was lost`);
        else {
          assert.ok((object.spec as { version: number }).version >= e.version, `run ${run}: ${name} went back to an older version`);
          assert.ok(Number(object.metadata!.resourceVersion) >= e.rv, `run ${run}: ${name} has an older resourceVersion`);
        }
        if (object === undefined) expect.set(name, { ...e, deleted: 'yes' });
      }
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a data directory held by another process fails to open with a clear error naming it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fairway-locked-'));
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir, 'lock', SEED], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => line.startsWith('ready') && resolve());
      child.on('exit', (code) => reject(new Error(`child exited (${code}) before it was ready`)));
    });
    const store = createStore({ backend: createLevelDbBackend({ location: dir }), clock: new SimClock() });
    const error = await store.open().then(
      () => assert.unreachable('opened a directory another process holds'),
      (e: unknown) => e,
    );
    assert.ok(isStoreError(error));
    assert.is(error.code, 'FW_ERR_STORE_LOCKED');
    assert.ok(error.message.includes(dir), error.message);
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
