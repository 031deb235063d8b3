// Reliability 6: a damaged LevelDB data directory never comes up empty or short of what was
// acknowledged. `fairway serve` on LevelDB takes 40 creates; then, with the server stopped, one
// fault is done to its store directory (CURRENT removed, the log cut to half, 64 bytes flipped in
// the log or in a table). The server must refuse to start: exit 1, an error naming the damaged file
// and the two commands to run with its --data-dir, and the directory left as it was. Then, for the
// cut log, the real CLI does what the error says: `fairway storage check` (exit 1), `fairway storage
// repair` (exit 0), and the server starts again, handing out resourceVersions above every one it
// acknowledged before.
import { cp, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { injectLevelDbFault, LEVELDB_FAULTS } from '../../engine/store/leveldb/testing/leveldb-faults.ts';
import { startServerProcess } from '../commands/testing/server-process.ts';
import { runFairway } from '../commands/testing/encryption-fixtures.ts';

const FS_PATH = '/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas';

const flowSchema = (name: string) => ({
  apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
  kind: 'FlowSchema',
  metadata: { name, annotations: { pad: 'p'.repeat(600) } },
  spec: { priorityLevelConfiguration: { name: 'global-default' }, matchingPrecedence: 9000 },
});

let root: string;
/** Data dirs after 40 acknowledged creates: the objects still in the log, and moved into a table. */
const bases: Record<'log' | 'table', string> = { log: '', table: '' };
let acknowledged = 0;

// One server run makes the writes for every fault; each test damages its own copy.
test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'fairway-e2e-storage-'));
  const server = await startServerProcess({ storageBackend: 'leveldb' });
  for (let i = 0; i < 40; i++) {
    const created = await server.client.request('POST', FS_PATH, { body: flowSchema(`e2e-${i}`) });
    assert.is(created.status, 201, created.text);
    acknowledged = Math.max(acknowledged, Number(created.json().metadata.resourceVersion));
  }
  assert.is(await server.stop({ keepData: true }), 0);
  bases.log = join(root, 'log');
  await cp(server.dataDir, bases.log, { recursive: true });
  // A restart replays the log into a table: the objects then live in a table file.
  const again = await startServerProcess({ storageBackend: 'leveldb', dataDir: server.dataDir });
  assert.is(await again.stop(), 0);
  bases.table = join(root, 'table');
  await cp(server.dataDir, bases.table, { recursive: true });
  await rm(server.dataDir, { recursive: true, force: true });
});

test.after(() => rm(root, { recursive: true, force: true }));

const contents = async (dir: string) =>
  Object.fromEntries(
    await Promise.all((await readdir(dir)).filter((f) => f !== 'LOG' && f !== 'LOCK').map(async (f) => [f, (await readFile(join(dir, f))).toString('base64')])),
  );

for (const fault of LEVELDB_FAULTS) {
  test(`fairway serve refuses a store with ${fault}, naming the file and the recovery`, async () => {
    const dataDir = join(root, fault);
    await cp(fault === 'table-flipped' || fault === 'current-removed' ? bases.table : bases.log, dataDir, { recursive: true });
    const location = join(dataDir, 'store');
    const file = injectLevelDbFault(location, fault);
    const before = await contents(location);
    const refusal = await startServerProcess({ storageBackend: 'leveldb', dataDir }).then(
      (): string => {
        throw new Error('the server started on a damaged store');
      },
      (error: Error) => error.message,
    );
    assert.match(refusal, /fairway serve exited with 1 before it was ready/);
    assert.ok(
      refusal.includes(`the database at ${location} is damaged: ${join(location, file)}`) || refusal.includes(`${join(location, file)} at byte`),
      refusal,
    );
    assert.ok(
      refusal.includes(
        `run "fairway storage check --data-dir ${dataDir}" to see what is wrong, and "fairway storage repair --data-dir ${dataDir}" to repair it`,
      ),
      refusal,
    );
    assert.equal(await contents(location), before, 'the refused start changed nothing in the store');
    if (fault !== 'log-truncated') return;

    // The server's own writes (status conditions) may follow the last create: at least that one.
    const stated = Number(/but revision (\d+) was acknowledged/.exec(refusal)?.[1]);
    assert.ok(stated >= acknowledged, refusal);
    const check = await runFairway(['storage', 'check', '--data-dir', dataDir]);
    assert.is(check.code, 1, check.stdout + check.stderr);
    assert.match(check.stdout, new RegExp(`\\[-\\]revision the database holds revision \\d+, but revision ${stated} was acknowledged`));
    const repair = await runFairway(['storage', 'repair', '--data-dir', dataDir]);
    assert.is(repair.code, 0, repair.stdout + repair.stderr);
    assert.match(repair.stdout, new RegExp(`lost: the changes of revisions \\d+-${stated}`));
    assert.ok(
      (await readdir(dataDir)).some((f) => f.startsWith('store.backup-')),
      'repair made a backup',
    );
    const repaired = await startServerProcess({ storageBackend: 'leveldb', dataDir });
    try {
      const created = await repaired.client.request('POST', FS_PATH, { body: flowSchema('after-repair') });
      assert.is(created.status, 201, created.text);
      assert.ok(Number(created.json().metadata.resourceVersion) > stated, 'no resourceVersion is handed out twice');
    } finally {
      await repaired.stop();
    }
  });
}

test.run();
