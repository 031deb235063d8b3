// A damaged LevelDB directory must never come up empty or short of what was acknowledged, and a
// failed write must not break the store for good. Faults are done to real directories on disk
// (testing/leveldb-faults.ts); writes fail through the backend's fault hook.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimClock } from '../../sim-clock.ts';
import { ACKNOWLEDGED_FILE, readAcknowledgedRevision } from './acknowledged-revision.ts';
import { createLevelDbBackend, type LevelDbBackendOptions } from './leveldb-backend.ts';
import { isStoreErrorCode, type StoreError } from '../store-errors.ts';
import { createStore } from '../store.ts';
import type { Store } from '../store-types.ts';
import { injectLevelDbFault, LEVELDB_FAULTS, type LevelDbFault } from './testing/leveldb-faults.ts';
import { PLC, Probe, plc, rejects, rvOf, settle, summary } from '../testing/suite-kit.ts';

const root = mkdtempSync(join(tmpdir(), 'fairway-integrity-'));
let dirs = 0;
const newDir = (): string => join(root, `db-${++dirs}`);

async function openStore(dir: string, extra: Partial<LevelDbBackendOptions> = {}, clock = new SimClock()): Promise<Store> {
  const store = createStore({ backend: createLevelDbBackend({ location: dir, ...extra }), clock });
  await store.open();
  return store;
}

/** 60 objects of ~600 bytes: the log spans two 32 KiB blocks, so damage at a third has intact records after it. */
async function writeObjects(dir: string, count = 60): Promise<number> {
  const store = await openStore(dir);
  let last = 0;
  for (let i = 0; i < count; i++)
    last = rvOf(await store.for(PLC).create(plc(`p${String(i).padStart(3, '0')}`, { note: 'x'.repeat(50) }, { type: 'Limited', pad: 'y'.repeat(500) })));
  await store.close();
  return last;
}

const snapshot = (dir: string): Record<string, string> =>
  Object.fromEntries(
    readdirSync(dir)
      .filter((f) => f !== 'LOG' && f !== 'LOCK')
      .map((f) => [f, readFileSync(join(dir, f)).toString('base64')]),
  );

async function refused(dir: string): Promise<StoreError> {
  const store = createStore({ backend: createLevelDbBackend({ location: dir }), clock: new SimClock() });
  const error = await rejects(store.open(), 'FW_ERR_STORE_CORRUPT');
  assert.match(error.message, /fairway storage check/);
  assert.match(error.message, /fairway storage repair/);
  assert.is(store.state, 'failed');
  return error;
}

async function prepare(fault: LevelDbFault): Promise<{ dir: string; acknowledged: number }> {
  const dir = newDir();
  const acknowledged = await writeObjects(dir);
  // A reopen replays the log into a table: the objects are then in a table file.
  if (fault === 'table-flipped' || fault === 'current-removed') await (await openStore(dir)).close();
  return { dir, acknowledged };
}

for (const fault of LEVELDB_FAULTS) {
  test(`a store with ${fault} refuses to open, names the file, and is left as it was`, async () => {
    const { dir } = await prepare(fault);
    const file = injectLevelDbFault(dir, fault);
    const before = snapshot(dir);
    const error = await refused(dir);
    assert.ok(error.message.includes(join(dir, file)) || (fault === 'log-truncated' && error.message.includes(ACKNOWLEDGED_FILE)), error.message);
    assert.equal(snapshot(dir), before, 'the refused open changed nothing');
    if (fault === 'current-removed')
      assert.ok(
        readdirSync(dir).some((f) => f.endsWith('.ldb')),
        'the table files are still there',
      );
    // And again: a second attempt is refused the same way (nothing was "repaired" by the first).
    await refused(dir);
  });
}

test('a cut log names the log, the last intact revision and the acknowledged one', async () => {
  const { dir, acknowledged } = await prepare('log-truncated');
  const file = injectLevelDbFault(dir, 'log-truncated');
  const error = await refused(dir);
  assert.match(
    error.message,
    new RegExp(`${file} at byte \\d+: the file ends inside a record: its last intact write is revision \\d+, but revision ${acknowledged} was acknowledged`),
  );
});

test('an older copy of the directory is refused: the revision is behind the acknowledged one', async () => {
  const dir = newDir();
  await writeObjects(dir, 5);
  const old = `${dir}-old`;
  cpSync(dir, old, { recursive: true });
  const acknowledged = await writeObjects(dir, 0).then(async () => {
    const store = await openStore(dir);
    const rv = rvOf(await store.for(PLC).create(plc('later')));
    await store.close();
    return rv;
  });
  rmSync(join(old, ACKNOWLEDGED_FILE));
  cpSync(join(dir, ACKNOWLEDGED_FILE), join(old, ACKNOWLEDGED_FILE));
  const error = await refused(old);
  assert.match(error.message, new RegExp(`holds revision ${acknowledged - 1}, but revision ${acknowledged} was acknowledged`));
});

test('a missing acknowledged-revision file is refused; a directory from before it existed gets one', async () => {
  const dir = newDir();
  const acknowledged = await writeObjects(dir, 3);
  assert.equal(await readAcknowledgedRevision(dir), { kind: 'ok', revision: acknowledged });
  rmSync(join(dir, ACKNOWLEDGED_FILE));
  const error = await refused(dir);
  assert.match(error.message, /ACKNOWLEDGED-REVISION is missing/);
  // A garbled file is refused too, not read as zero.
  writeFileSync(join(dir, ACKNOWLEDGED_FILE), Buffer.alloc(64, 7));
  assert.match((await refused(dir)).message, /ACKNOWLEDGED-REVISION is damaged/);
});

test('a new store is created only in a missing or empty directory; anything else without CURRENT is refused', async () => {
  const missing = newDir();
  await (await openStore(missing)).close();
  assert.ok(existsSync(join(missing, 'CURRENT')));
  const empty = newDir();
  mkdirSync(empty);
  await (await openStore(empty)).close();
  const stranger = newDir();
  mkdirSync(stranger);
  writeFileSync(join(stranger, 'notes.txt'), 'mine');
  const error = await refused(stranger);
  assert.match(error.message, /CURRENT is missing, but the directory is not empty \(1 files: notes\.txt\); refusing to create a new database over it/);
  assert.equal(readdirSync(stranger), ['notes.txt']);
});

test('a crash-cut tail that was never acknowledged still opens', async () => {
  const dir = newDir();
  const acknowledged = await writeObjects(dir, 5);
  // A write cut short by a crash: a record header promising more bytes than the log holds.
  const log = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort()
    .at(-1)!;
  const bytes = readFileSync(join(dir, log));
  writeFileSync(join(dir, log), Buffer.concat([bytes, Buffer.from([1, 2, 3, 4, 0xff, 0x7f, 1, 9, 9])]));
  const store = await openStore(dir);
  assert.is(store.revision(), acknowledged);
  await store.close();
});

// ---------------------------------------------------------------------------------------------
// A failed write: reads go on, writes get 503 until the disk takes writes again, then all is there.

function diskFault(code: string): Error {
  return Object.assign(new Error(`${code}: injected, write`), { code });
}

test('after a failed write, reads go on, writes are refused with 503, and the store recovers by itself', async () => {
  const dir = newDir();
  let failing: string | undefined;
  const clock = new SimClock();
  const store = await openStore(dir, { faults: { beforeWrite: () => (failing === undefined ? undefined : diskFault(failing)) } }, clock);
  const plcs = store.for(PLC);
  const acknowledged = [await plcs.create(plc('a')), await plcs.create(plc('b'))];
  const watch = new Probe(await plcs.watch({ resourceVersion: String(rvOf(acknowledged[1]!)) }));

  failing = 'ENOSPC';
  const [first, second] = await Promise.allSettled([plcs.create(plc('c')), plcs.create(plc('d'))]);
  for (const outcome of [first!, second!]) {
    assert.is(outcome.status, 'rejected');
    assert.ok(isStoreErrorCode((outcome as PromiseRejectedResult).reason, 'FW_ERR_STORE_WRITE_FAILED'));
    assert.match(((outcome as PromiseRejectedResult).reason as Error).message, /writing to .* failed: ENOSPC/);
  }
  const refusedWrite = await rejects(
    plcs.update({ ...acknowledged[0]!, spec: { type: 'Exempt' } }),
    'FW_ERR_STORE_WRITES_UNAVAILABLE',
    /storage is not taking writes until it recovers from a failed write: writing to .* failed: ENOSPC/,
  );
  assert.is(refusedWrite.details?.retryAfterSeconds, 1);
  assert.match(refusedWrite.details?.causes?.[0]?.message ?? '', /^writing to .* failed: ENOSPC/);
  assert.ok(store.writeOutage !== undefined);
  assert.is(store.state, 'open');
  // Reads are served, consistent ones included; the failed creates left nothing behind.
  assert.equal(
    (await plcs.list()).items.map((o) => o.metadata!.name),
    ['a', 'b'],
  );
  assert.equal(await plcs.get('a'), acknowledged[0]);
  await rejects(plcs.get('c'), 'FW_ERR_STORE_NOT_FOUND');
  await watch.quiet();

  // Retries fail while the disk still refuses, the same way.
  failing = 'EACCES';
  clock.advance(1_000);
  await until(() => false, 20);
  assert.ok(store.writeOutage !== undefined);

  failing = undefined;
  clock.advance(1_000);
  await until(() => store.writeOutage === undefined);
  const c = await plcs.create(plc('c'));
  assert.is(rvOf(c), rvOf(acknowledged[1]!) + 1, 'the failed writes handed out no resourceVersion anyone saw');
  assert.equal((await watch.take(1)).map(summary), [`ADDED c@${rvOf(c)}`]);
  watch.watcher.stop();
  await store.close();
  const reopened = await openStore(dir);
  assert.equal(
    (await reopened.for(PLC).list()).items.map((o) => o.metadata!.name),
    ['a', 'b', 'c'],
  );
  await reopened.close();
});

test('a failed write that did reach the disk is taken in when writes come back', async () => {
  const dir = newDir();
  let failAfter = false;
  const clock = new SimClock();
  const store = await openStore(dir, { faults: { afterWrite: () => (failAfter ? diskFault('EIO') : undefined) } }, clock);
  const plcs = store.for(PLC);
  const a = await plcs.create(plc('a'));
  const watch = new Probe(await plcs.watch({ resourceVersion: String(rvOf(a)) }));
  failAfter = true;
  await rejects(plcs.create(plc('b')), 'FW_ERR_STORE_WRITE_FAILED', /EIO/);
  await rejects(plcs.get('b'), 'FW_ERR_STORE_NOT_FOUND');
  failAfter = false;
  clock.advance(1_000);
  await until(() => store.writeOutage === undefined);
  // Its outcome was unknown to its writer (a 500), as with etcd; now the store says what happened.
  assert.equal((await watch.take(1)).map(summary), [`ADDED b@${rvOf(a) + 1}`]);
  assert.is(rvOf(await plcs.get('b')), rvOf(a) + 1);
  assert.is(rvOf(await plcs.create(plc('c'))), rvOf(a) + 2);
  watch.watcher.stop();
  await store.close();
});

async function until(done: () => boolean, rounds = 2_000): Promise<void> {
  for (let i = 0; i < rounds && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (rounds > 20) assert.ok(done(), 'condition not reached');
  await settle();
}

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
