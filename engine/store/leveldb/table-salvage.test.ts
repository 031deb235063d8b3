// Salvage of real LevelDB tables (written by classic-level): what each kind of damage leaves
// readable, and the salvage log that LevelDB's repair reads back.
import { ClassicLevel } from 'classic-level';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { batchValueOf, scanLog } from './leveldb-files.ts';
import { encodeSalvageLog } from './salvage-log.ts';
import { indexedBlocks, newestPerKey, readFooter, salvageTable, type SalvagedEntry } from './table-salvage.ts';

let root: string;
let table: Buffer;

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), 'fw-table-salvage-'));
  const db = new ClassicLevel<string, string>(join(root, 'db'));
  await db.open();
  // Values that do not compress much, so that the table has many data blocks of both types.
  for (let i = 0; i < 300; i++) await db.put(`k${String(i).padStart(4, '0')}`, `${i}:${(i * 7919).toString(36).repeat(20 + (i % 40))}`);
  for (let i = 0; i < 300; i += 10) await db.put(`k${String(i).padStart(4, '0')}`, `new ${i}`);
  for (let i = 5; i < 300; i += 10) await db.del(`k${String(i).padStart(4, '0')}`);
  await db.close();
  const reopened = new ClassicLevel(join(root, 'db'));
  await reopened.open(); // the log becomes a table
  await reopened.close();
  const tables = (await readdir(join(root, 'db'))).filter((n) => n.endsWith('.ldb'));
  assert.is(tables.length, 1, tables.join(' '));
  table = await readFile(join(root, 'db', tables[0]!));
});
test.after(() => rm(root, { recursive: true, force: true }));

const keysOf = (entries: readonly SalvagedEntry[]) => entries.map((e) => `${Buffer.from(e.key).toString()}@${e.sequence}${e.deleted ? '-' : ''}`);
const flipped = (at: number[]) => {
  const copy = Buffer.from(table);
  for (const i of at) copy[i]! ^= 0x40;
  return copy;
};

test('an intact table: every data block through the index, every version of every key', () => {
  const salvage = salvageTable(table);
  assert.is(salvage.via, 'index');
  assert.equal(salvage.skipped, []);
  assert.ok(salvage.blocks > 10, `${salvage.blocks} blocks`);
  // 300 puts, 30 overwrites and 30 deletions: a flushed table keeps every version.
  assert.is(salvage.entries.length, 360);
  const newest = newestPerKey(salvage.entries);
  assert.is(newest.length, 300);
  assert.is(newest.filter((e) => e.deleted).length, 30);
  assert.is(Buffer.from(newest.find((e) => Buffer.from(e.key).toString() === 'k0010')!.value).toString(), 'new 10');
});

test('a damaged index block or footer: the same entries, found by walking the data blocks', () => {
  const whole = keysOf(salvageTable(table).entries);
  const { index } = readFooter(table)!;
  for (const [what, at] of [
    ['index block', [index.offset + Math.floor(index.size / 2)]],
    ['index trailer', [index.offset + index.size + 2]],
    ['footer handles', Array.from({ length: 8 }, (_, i) => table.length - 48 + i)],
    ['footer magic', [table.length - 1]],
  ] as const) {
    const salvage = salvageTable(flipped([...at]));
    assert.is(salvage.via, 'scan', what);
    assert.equal(keysOf(salvage.entries), whole, what);
    // Without its magic number the footer is not known to be one: its bytes are reported unread.
    assert.equal(salvage.skipped, what === 'footer magic' ? [[table.length - 48, table.length]] : [], what);
  }
});

test('a cut table: every data block before the cut', () => {
  const blocks = indexedBlocks(table)!;
  const cutInside = blocks.at(-2)!;
  const salvage = salvageTable(table.subarray(0, cutInside.offset + 10));
  assert.is(salvage.via, 'scan');
  assert.equal(keysOf(salvage.entries), keysOf(blocks.slice(0, -2).flatMap((b) => b.entries!)));
  assert.equal(salvage.skipped, [[cutInside.offset, cutInside.offset + 10]]);
});

test('a damaged data block as well: every other block, past the damage through what the index still names or by checksums alone', () => {
  const blocks = indexedBlocks(table)!;
  const { index } = readFooter(table)!;
  const hit = blocks[3]!;
  const expected = keysOf(blocks.filter((b) => b !== hit).flatMap((b) => b.entries!));
  const inHit = hit.offset + Math.floor(hit.size / 2);
  // One flip near the index's end: its earlier entries still name the blocks after the damaged one.
  const named = salvageTable(flipped([inHit, index.offset + index.size - 6]));
  assert.equal(keysOf(named.entries), expected);
  assert.equal(named.skipped, [[hit.offset, hit.offset + hit.size + 5]]);
  // The whole index garbled: the next start is found by the checksums alone.
  const garbled = flipped([inHit, ...Array.from({ length: index.size }, (_, i) => index.offset + i)]);
  const walked = salvageTable(garbled);
  assert.equal(keysOf(walked.entries), expected);
  assert.equal(walked.skipped, [[hit.offset, hit.offset + hit.size + 5]]);
  // Through the intact index, only the damaged block is missing.
  assert.equal(keysOf(salvageTable(flipped([inHit])).entries), expected);
});

test('the salvage log: one write batch per entry with its sequence number, records split across 32 KiB blocks', () => {
  const entries: SalvagedEntry[] = [
    { key: Buffer.from('a'), sequence: 7n, deleted: false, value: Buffer.from('x'.repeat(70_000)) },
    { key: Buffer.from('b'), sequence: 3n, deleted: true, value: new Uint8Array(0) },
    { key: Buffer.from('c'), sequence: 2n ** 40n, deleted: false, value: Buffer.from('small') },
  ];
  const scan = scanLog('salvage.log', encodeSalvageLog(entries));
  assert.equal(scan.damage, []);
  assert.is(scan.records.length, 3);
  assert.is(batchValueOf(scan.records[0]!.payload, 'a')?.length, 70_000);
  assert.is(Buffer.from(scan.records[0]!.payload).readBigUInt64LE(0), 7n);
  assert.is(scan.records[1]!.payload[12], 0, 'a deletion');
  assert.is(batchValueOf(scan.records[2]!.payload, 'c'), 'small');
  assert.is(Buffer.from(scan.records[2]!.payload).readBigUInt64LE(0), 2n ** 40n);
});

test.run();
