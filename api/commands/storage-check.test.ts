// `fairway storage check` and `fairway storage repair` on real LevelDB directories with the faults
// the server must refuse (engine/store/leveldb/testing/leveldb-faults.ts): check names what is wrong and
// exits 1 without changing anything; repair backs the directory up, repairs it, reports what was
// lost, and leaves a store the server opens with resourceVersions above every acknowledged one.
import { spawn } from 'node:child_process';
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../../engine/sim-clock.ts';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { createStore } from '../../engine/store/store.ts';
import type { Store } from '../../engine/store/store-types.ts';
import { readFooter } from '../../engine/store/leveldb/table-salvage.ts';
import { injectLevelDbFault, LEVELDB_FAULTS } from '../../engine/store/leveldb/testing/leveldb-faults.ts';
import { PLC, plc, rvOf } from '../../engine/store/testing/suite-kit.ts';
import { runStorageCheck } from './storage-check.ts';
import { runStorageRepair } from './storage-repair.ts';

let root: string;
test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-storage-check-'));
});
test.after(() => rm(root, { recursive: true, force: true }));

let dirs = 0;
async function dataDirWithObjects(count: number): Promise<{ dataDir: string; acknowledged: number }> {
  const dataDir = join(root, `data-${++dirs}`);
  const store = await open(dataDir);
  let acknowledged = 0;
  for (let i = 0; i < count; i++)
    acknowledged = rvOf(
      await store.for(PLC).create(plc(`p${String(i).padStart(3, '0')}`, { note: 'x'.repeat(50) }, { type: 'Limited', pad: 'y'.repeat(500) })),
    );
  await store.close();
  return { dataDir, acknowledged };
}

async function open(dataDir: string): Promise<Store> {
  const store = createStore({ backend: createLevelDbBackend({ location: join(dataDir, 'store') }), clock: new SimClock() });
  await store.open();
  return store;
}

async function run(command: typeof runStorageCheck, args: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await command(args, { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

const HOLD_STORE = `import { ClassicLevel } from 'classic-level';
const db = new ClassicLevel(process.argv[1]);
await db.open();
process.stdout.write('open');
process.stdin.resume();
process.stdin.on('end', () => db.close().then(() => process.exit(0)));`;

const filesOf = async (dir: string) =>
  Object.fromEntries(
    await Promise.all(
      (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isFile() && e.name !== 'LOG' && e.name !== 'LOCK')
        .map(async (e) => [e.name, (await readFile(join(dir, e.name))).toString('base64')]),
    ),
  );

const EXPECTED: Record<string, RegExp[]> = {
  'current-removed': [/\[-\]directory .*CURRENT is missing/],
  'log-truncated': [
    /\[-\]log-tail .*\.log at byte \d+: the file ends inside a record after revision \d+/,
    /\[-\]revision the database holds revision \d+, but revision 60 was acknowledged: the changes of revisions \d+-60 are lost/,
  ],
  'log-flipped': [/\[-\]files .*\.log at byte \d+: checksum mismatch/, /\[-\]event-log revisions \d+-\d+ are missing from the event log/],
  'table-flipped': [/\[-\]files .*\.ldb at byte \d+: data block \(keys after ".*" up to ".*"\): checksum mismatch/, /\[-\]read LevelDB stopped reading after/],
};

for (const fault of LEVELDB_FAULTS) {
  test(`check finds ${fault} without changing the store; repair backs it up, repairs it and reports the loss`, async () => {
    const { dataDir, acknowledged } = await dataDirWithObjects(60);
    const location = join(dataDir, 'store');
    if (fault === 'table-flipped' || fault === 'current-removed') await (await open(dataDir)).close();
    const intact = await run(runStorageCheck, ['--data-dir', dataDir]);
    assert.is(intact.code, 0, intact.stdout);
    assert.match(intact.stdout, /\[\+\]values 60 objects decode: prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io 60/);
    assert.match(intact.stdout, /storage check passed\n$/);

    injectLevelDbFault(location, fault);
    const damaged = await filesOf(location);
    const check = await run(runStorageCheck, ['--data-dir', dataDir]);
    assert.is(check.code, 1, check.stdout);
    for (const line of EXPECTED[fault]!) assert.match(check.stdout, line);
    assert.match(check.stdout, new RegExp(`storage check failed: \\d+ problems?; run "fairway storage repair --data-dir ${dataDir}" to repair it`));
    assert.equal(await filesOf(location), damaged, 'check changed nothing');
    assert.equal((await readdir(dataDir)).sort(), ['store'], 'check left no snapshot behind');

    const backup = join(dataDir, 'before-repair');
    const repair = await run(runStorageRepair, ['--data-dir', dataDir, '--backup-dir', backup]);
    assert.is(repair.code, 0, repair.stdout + repair.stderr);
    assert.equal(await filesOf(backup), damaged, 'the backup is the damaged store as it was');
    assert.match(repair.stdout, new RegExp(`backed up ${location} to ${backup}`));
    assert.match(repair.stdout, /leveldb repair: \*\*\*\* Repaired leveldb/);
    assert.match(repair.stdout, /the revision counter is 60: new writes get resourceVersions from 61/);
    assert.match(repair.stdout, /storage repair done: the store opens again/);
    if (fault === 'log-truncated') assert.match(repair.stdout, /lost: the changes of revisions \d+-60 \(acknowledged, no longer in the store\)/);
    if (fault === 'log-flipped') assert.match(repair.stdout, /lost: the changes of revisions \d+-\d+ \(missing from the event log of the damaged store\)/);
    if (fault === 'table-flipped') {
      assert.match(repair.stdout, /rebuilt .*\.ldb from \d+ intact data blocks found through its index block: \d+ entries kept; unreadable bytes \d+-\d+/);
      assert.match(repair.stdout, /lost: \/registry\/flowcontrol\.apiserver\.k8s\.io\/prioritylevelconfigurations\/p\d+ at revision \d+ \(gone\)/);
    }
    if (fault === 'current-removed') assert.match(repair.stdout, /objects after the repair: prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io 60\n/);

    assert.is((await run(runStorageCheck, ['--data-dir', dataDir])).code, 0);
    const store = await open(dataDir);
    assert.is(store.revision(), acknowledged);
    assert.is(rvOf(await store.for(PLC).create(plc('after-repair'))), acknowledged + 1, 'no resourceVersion is handed out twice');
    await store.close();
  });
}

test('repair keeps every object of a table whose index block has one flipped byte', async () => {
  const { dataDir, acknowledged } = await dataDirWithObjects(120);
  const location = join(dataDir, 'store');
  await (await open(dataDir)).close(); // the log becomes a table
  const tables = (await readdir(location)).filter((n) => n.endsWith('.ldb'));
  assert.is(tables.length, 1, tables.join(' '));
  const path = join(location, tables[0]!);
  const bytes = await readFile(path);
  const { index } = readFooter(bytes)!;
  bytes[index.offset + Math.floor(index.size / 2)]! ^= 0x10;
  await writeFile(path, bytes);

  const repair = await run(runStorageRepair, ['--data-dir', dataDir, '--backup-dir', join(dataDir, 'backup')]);
  assert.is(repair.code, 0, repair.stdout + repair.stderr);
  assert.match(repair.stdout, /objects after the repair: prioritylevelconfigurations\.flowcontrol\.apiserver\.k8s\.io 120\n/);
  assert.not.match(repair.stdout, /^lost: /m);
  assert.match(repair.stdout, /rebuilt .*\.ldb from \d+ intact data blocks found through a scan of its data blocks \(its index block or footer is damaged\)/);
  const store = await open(dataDir);
  assert.is((await store.for(PLC).list()).items.length, 120);
  assert.is(store.revision(), acknowledged);
  await store.close();
});

test('a backup that fails part way (a full disk) leaves no partial backup and the store as it was', async () => {
  const { dataDir } = await dataDirWithObjects(20);
  const location = join(dataDir, 'store');
  injectLevelDbFault(location, 'log-flipped');
  const damaged = await filesOf(location);
  const backup = join(dataDir, 'new', 'backup');
  const fullDisk = async (from: string, to: string) => {
    const [first] = await readdir(from);
    await copyFile(join(from, first!), join(to, first!));
    throw Object.assign(new Error(`ENOSPC: no space left on device, write '${join(to, 'x.log')}'`), { code: 'ENOSPC' });
  };
  let stdout = '';
  let stderr = '';
  const code = await runStorageRepair(
    ['--data-dir', dataDir, '--backup-dir', backup],
    { stdout: (t) => (stdout += t), stderr: (t) => (stderr += t) },
    undefined,
    fullDisk,
  );
  assert.is(code, 1, stdout);
  assert.match(stderr, new RegExp(`^Error: backing up ${location} to ${backup} failed: ENOSPC: no space left on device, write .*; nothing was changed\n$`));
  assert.equal((await readdir(dataDir)).sort(), ['store'], 'no partial backup, nor the directory made for it');
  assert.equal(await filesOf(location), damaged, 'the store is untouched');

  // A backup directory that cannot be made (its parent is a file) is a real failure of the same kind.
  const underFile = join(location, 'CURRENT', 'backup');
  const refused = await run(runStorageRepair, ['--data-dir', dataDir, '--backup-dir', underFile]);
  assert.is(refused.code, 1);
  assert.match(refused.stderr, /^Error: backing up .* to .*CURRENT\/backup failed: E\w+: .*; nothing was changed\n$/);
  assert.equal(await filesOf(location), damaged, 'the store is untouched');
});

test('an intact store is not repaired; a store in use is refused; flags are named in errors', async () => {
  const { dataDir } = await dataDirWithObjects(2);
  const noop = await run(runStorageRepair, ['--data-dir', dataDir]);
  assert.is(noop.code, 0);
  assert.match(noop.stdout, /storage check passed: nothing to repair\n$/);
  assert.equal((await readdir(dataDir)).sort(), ['store'], 'no backup of an intact store');

  // Another process holds the store, as a running server does (LevelDB's lock is per process).
  const holder = spawn(process.execPath, ['--input-type=module', '-e', HOLD_STORE, join(dataDir, 'store')], {
    cwd: process.cwd(),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('exit', (code) => reject(new Error(`the holder exited with ${code}`)));
  });
  try {
    const check = await run(runStorageCheck, ['--data-dir', dataDir]);
    assert.is(check.code, 1);
    assert.match(check.stdout, /\[-\]in-use .* is in use: another process has it open \(stop fairway serve first\)/);
    const repair = await run(runStorageRepair, ['--data-dir', dataDir]);
    assert.is(repair.code, 1);
    assert.match(repair.stderr, /is in use: stop fairway serve first/);
  } finally {
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.stdin.end();
    await exited;
  }
  const missing = await run(runStorageCheck, ['--data-dir', join(root, 'nowhere')]);
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /^Error: --data-dir ".*nowhere": no such directory; give the directory fairway serve --data-dir used\n$/);
  const notDir = await run(runStorageCheck, ['--data-dir', join(dataDir, 'store', 'CURRENT')]);
  assert.match(notDir.stderr, /^Error: --data-dir ".*CURRENT" is not a directory; give the directory fairway serve --data-dir used\n$/);
  const empty = await run(runStorageCheck, ['--data-dir', root]);
  assert.match(empty.stderr, /^Error: --data-dir ".*" holds no Fairway store \(expected a LevelDB database at .*store\)\n$/);
  assert.is((await run(runStorageCheck, ['--data-dir='])).code, 2);
  assert.match((await run(runStorageRepair, ['--nope'])).stderr, /^Error: unknown flag: --nope\n/);
  const taken = await run(runStorageRepair, ['--data-dir', dataDir, '--backup-dir', join(dataDir, 'store')]);
  assert.match(taken.stderr, /^Error: --backup-dir ".*store" already exists; give a new directory\n$/);
});

test.run();
