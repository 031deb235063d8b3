// Repair of a damaged table: bytes flipped in a real LevelDB table (written by the LevelDB backend,
// with updates and deletions, so that a table holds several versions of a key) — in its data
// blocks, its filter and metaindex blocks, its index block or its footer — and then `fairway
// storage repair`. Properties, per damage:
//   - repair exits 0 (it never crashes, never gives up on a table it can read) and the store opens;
//   - every key whose newest version lies in an intact data block is there afterwards at exactly
//     that revision, or absent if that version is its deletion (newest sequence number wins).
// The storage faults of the server's own tests (leveldb-faults.ts) damage one place; here up to
// three places at once, which is where a walk past a damaged index has to find its way again.
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { runStorageRepair } from '../../api/commands/storage-repair.ts';
import { SimClock } from '../../engine/sim-clock.ts';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { splitTrailer } from '../../engine/store/leveldb/leveldb-layout.ts';
import { indexedBlocks, readFooter } from '../../engine/store/leveldb/table-salvage.ts';
import { PLC, plc, rvOf } from '../../engine/store/testing/suite-kit.ts';
import { createStore } from '../../engine/store/store.ts';
import { checkAsyncProperty } from '../support/runner.ts';
import { sized } from './harness.ts';

const PREFIX = '/registry/flowcontrol.apiserver.k8s.io/prioritylevelconfigurations/';

let root: string;
let pristine: string;
let table: string;
let bytes: Buffer;
/** The table's regions, [from, to) with trailers: where a flip lands. */
let regions: Record<'data' | 'meta' | 'index' | 'footer', [number, number]>;

const openStore = async (dataDir: string) => {
  const store = createStore({ backend: createLevelDbBackend({ location: join(dataDir, 'store') }), clock: new SimClock() });
  await store.open();
  return store;
};

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-repair-index-'));
  pristine = join(root, 'pristine');
  const store = await openStore(pristine);
  const objects = sized(90, 400);
  for (let i = 0; i < objects; i++)
    await store.for(PLC).create(plc(`p${String(i).padStart(4, '0')}`, { n: String(i % 7) }, { type: 'Limited', pad: 'y'.repeat(300 + (i % 5) * 200) }));
  for (let i = 0; i < objects; i += 4) {
    const current = await store.for(PLC).get(`p${String(i).padStart(4, '0')}`);
    await store.for(PLC).update({ ...current, metadata: { ...current.metadata, labels: { updated: 'yes' } } });
  }
  for (let i = 1; i < objects; i += 9) await store.for(PLC).delete(`p${String(i).padStart(4, '0')}`);
  await store.close();
  await (await openStore(pristine)).close(); // the log becomes a table
  const location = join(pristine, 'store');
  const tables = (await readdir(location)).filter((n) => n.endsWith('.ldb'));
  assert.is(tables.length, 1, `one table: ${tables.join(' ')}`);
  table = tables[0]!;
  bytes = await readFile(join(location, table));
  const footer = readFooter(bytes)!;
  const blocks = indexedBlocks(bytes)!;
  const dataEnd = blocks.at(-1)!.offset + blocks.at(-1)!.size + 5;
  regions = {
    data: [0, dataEnd],
    meta: [dataEnd, footer.index.offset],
    index: [footer.index.offset, footer.index.offset + footer.index.size + 5],
    footer: [bytes.length - 48, bytes.length],
  };
});
test.after(() => rm(root, { recursive: true, force: true }));

const flipArb = fc.record({
  region: fc.constantFrom<'data' | 'meta' | 'index' | 'footer'>('data', 'meta', 'index', 'index', 'footer'),
  at: fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
  bit: fc.integer({ min: 0, max: 7 }),
});

/** Each key's newest version in the table, and whether the data block holding it is intact. */
function expectations(damaged: ReadonlySet<number>): Map<string, { revision: number | undefined; intact: boolean }> {
  const out = new Map<string, { revision: number | undefined; intact: boolean; sequence: bigint }>();
  for (const block of indexedBlocks(bytes)!) {
    let intact = true;
    for (let i = block.offset; i < block.offset + block.size + 5; i++) if (damaged.has(i)) intact = false;
    for (const entry of block.entries!) {
      const key = Buffer.from(entry.key).toString('utf8');
      if (!key.startsWith(PREFIX) || (out.get(key)?.sequence ?? -1n) > entry.sequence) continue;
      const revision = entry.deleted ? undefined : splitTrailer(key, entry.value).modRevision;
      out.set(key, { revision, intact, sequence: entry.sequence });
    }
  }
  return out;
}

let runs = 0;
test('repair keeps every key whose newest version is in an intact data block, whatever else is damaged', async () => {
  await checkAsyncProperty(
    'repair of a damaged table loses nothing an intact data block holds',
    fc.asyncProperty(fc.array(flipArb, { minLength: 1, maxLength: 3 }), async (flips) => {
      const dataDir = join(root, `case-${++runs}`);
      await cp(pristine, dataDir, { recursive: true });
      const damaged = new Set<number>();
      const copy = Buffer.from(bytes);
      for (const { region, at, bit } of flips) {
        const [from, to] = regions[region];
        const offset = from + Math.floor(at * (to - from));
        copy[offset]! ^= 1 << bit;
        damaged.add(offset);
      }
      await writeFile(join(dataDir, 'store', table), copy);
      let stdout = '';
      const code = await runStorageRepair(['--data-dir', dataDir, '--backup-dir', join(dataDir, 'backup')], {
        stdout: (t) => (stdout += t),
        stderr: (t) => (stdout += t),
      });
      assert.is(code, 0, stdout);
      const store = await openStore(dataDir);
      try {
        for (const [key, { revision, intact }] of expectations(damaged)) {
          if (!intact) continue;
          const name = key.slice(PREFIX.length);
          const found = await store
            .for(PLC)
            .get(name)
            .catch(() => undefined);
          assert.is(found === undefined ? undefined : rvOf(found), revision, `${name} after flips ${JSON.stringify(flips)}\n${stdout}`);
        }
      } finally {
        await store.close();
        await rm(dataDir, { recursive: true, force: true });
      }
    }),
    { runs: 12 },
  );
});

test.run();
