// Reads a LevelDB directory's own files and checks the CRC32C checksums LevelDB writes into them,
// without opening the database. classic-level does not expose LevelDB's `paranoid_checks` or
// `verify_checksums`, so LevelDB itself skips a damaged log record silently (it notes "dropping N
// bytes" in its LOG file and goes on) and hands out whatever a damaged table block decodes to. And
// opening a database replays its logs into a new table and deletes them, so a damaged log must be
// found before the open, or the evidence is gone. Formats (LevelDB's doc/log_format.md and
// doc/table_format.md):
//
//   log (*.log, MANIFEST-*)  32 KiB blocks of records: crc32c (masked) u32le, length u16le, type u8
//                            (1 full, 2 first, 3 middle, 4 last), payload; a block's last < 7 bytes
//                            are zero padding. A log record of a *.log file is one WriteBatch:
//                            sequence u64le, count u32le, then (tag u8, varstring key[, varstring value]).
//   table (*.ldb, *.sst)     blocks, each followed by type u8 (0 raw, 1 snappy) and the masked crc32c
//                            of contents + type; a 48-byte footer holds the metaindex and index block
//                            handles (varint64 offset, size) and the magic; the index block's values
//                            are the data blocks' handles.
//
// A log that ends inside a record is what a crash leaves while a write was being synced (never
// acknowledged); damage anywhere before the last intact record is not.

import { crc32c } from '@node-rs/crc32';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import snappy from 'snappyjs';
import { append } from '../../append.ts';

export interface FileDamage {
  /** The file name inside the directory. */
  readonly file: string;
  readonly offset: number;
  readonly reason: string;
}

export interface LevelDbFiles {
  /** Log, manifest and table files read. */
  readonly files: number;
  readonly bytes: number;
  /** Damage that no crash can explain: a bad checksum or structure before intact data. */
  readonly damage: readonly FileDamage[];
  /** The newest log ends inside a record: a write cut short (a crash), or a truncated file. */
  readonly tornTail: FileDamage | undefined;
  /** The newest value of `revisionKey` written by an intact log record, if any log holds one. */
  readonly lastLoggedRevision: number | undefined;
}

const BLOCK_SIZE = 32 * 1024;
const HEADER_SIZE = 7;
export const FOOTER_SIZE = 48;
export const TABLE_MAGIC = [0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb];
const MASK_DELTA = 0xa282ead8;

/** LevelDB stores crc32c values rotated and offset, so that a CRC of data holding CRCs stays strong. */
export function unmask(masked: number): number {
  const rot = (masked - MASK_DELTA) >>> 0;
  return ((rot >>> 17) | (rot << 15)) >>> 0;
}

export class Reader {
  constructor(
    readonly bytes: Uint8Array,
    public at: number,
    readonly end: number,
  ) {}
  varint(): number {
    let result = 0;
    for (let shift = 0; shift <= 63; shift += 7) {
      if (this.at >= this.end) throw new Error('varint runs past the end');
      const byte = this.bytes[this.at++]!;
      result += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return result;
    }
    throw new Error('varint is too long');
  }
  slice(length: number): Uint8Array {
    if (length > this.end - this.at) throw new Error(`a ${length}-byte field runs past the end`);
    const out = this.bytes.subarray(this.at, this.at + length);
    this.at += length;
    return out;
  }
}

export const u32 = (bytes: Uint8Array, at: number): number => (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;

interface LogScan {
  readonly records: { offset: number; payload: Uint8Array }[];
  /** Damage in file order; whether it is a torn tail depends on what follows (see inspect). */
  readonly damage: FileDamage[];
}

/** Every logical record of a log-format file whose checksums hold, and every place where they do not. */
export function scanLog(file: string, bytes: Uint8Array): LogScan {
  const records: { offset: number; payload: Uint8Array }[] = [];
  const damage: FileDamage[] = [];
  let fragments: Uint8Array[] | undefined;
  let fragmentStart = 0;
  let offset = 0;
  while (offset < bytes.length) {
    const blockEnd = Math.min(bytes.length, (Math.floor(offset / BLOCK_SIZE) + 1) * BLOCK_SIZE);
    if (blockEnd - offset < HEADER_SIZE) {
      // The writer pads a block's last bytes with zeros; at the end of the file it is a cut header.
      if (blockEnd === bytes.length && bytes.length % BLOCK_SIZE !== 0) damage.push({ file, offset, reason: 'the file ends inside a record header' });
      offset = blockEnd;
      continue;
    }
    const length = bytes[offset + 4]! | (bytes[offset + 5]! << 8);
    const type = bytes[offset + 6]!;
    if (type === 0 && length === 0) {
      offset = blockEnd; // preallocated space: the rest of the block is empty
      continue;
    }
    if (offset + HEADER_SIZE + length > blockEnd) {
      damage.push({ file, offset, reason: blockEnd === bytes.length ? 'the file ends inside a record' : 'bad record length' });
      offset = blockEnd;
      continue;
    }
    const expected = unmask(u32(bytes, offset));
    const actual = crc32c(bytes.subarray(offset + 6, offset + HEADER_SIZE + length));
    if (actual !== expected) {
      // The length may be what was damaged: nothing else in this block can be trusted (LevelDB's rule).
      damage.push({ file, offset, reason: 'checksum mismatch' });
      fragments = undefined;
      offset = blockEnd;
      continue;
    }
    const payload = bytes.subarray(offset + HEADER_SIZE, offset + HEADER_SIZE + length);
    if (type === 1) {
      if (fragments !== undefined) damage.push({ file, offset: fragmentStart, reason: 'partial record without end' });
      fragments = undefined;
      records.push({ offset, payload });
    } else if (type === 2) {
      if (fragments !== undefined) damage.push({ file, offset: fragmentStart, reason: 'partial record without end' });
      fragments = [payload];
      fragmentStart = offset;
    } else if (type === 3 || type === 4) {
      if (fragments === undefined) damage.push({ file, offset, reason: 'missing start of fragmented record' });
      else {
        fragments.push(payload);
        if (type === 4) {
          records.push({ offset: fragmentStart, payload: Buffer.concat(fragments) });
          fragments = undefined;
        }
      }
    } else {
      damage.push({ file, offset, reason: `unknown record type ${type}` });
      fragments = undefined;
      offset = blockEnd;
      continue;
    }
    offset += HEADER_SIZE + length;
  }
  if (fragments !== undefined) damage.push({ file, offset: fragmentStart, reason: 'the file ends inside a record' });
  return { records, damage };
}

/** The newest value a WriteBatch puts under `key`, or undefined; throws when the batch is malformed. */
export function batchValueOf(batch: Uint8Array, key: string): string | undefined {
  if (batch.length < 12) throw new Error('write batch shorter than its header');
  const count = u32(batch, 8);
  const reader = new Reader(batch, 12, batch.length);
  const wanted = Buffer.from(key);
  let found: string | undefined;
  for (let i = 0; i < count; i++) {
    const tag = reader.slice(1)[0];
    const name = reader.slice(reader.varint());
    if (tag === 1) {
      const value = reader.slice(reader.varint());
      if (Buffer.compare(name, wanted) === 0) found = Buffer.from(value).toString('utf8');
    } else if (tag !== 0) throw new Error(`write batch entry ${i} has tag ${tag}`);
  }
  if (reader.at !== batch.length) throw new Error('write batch has bytes after its last entry');
  return found;
}

/** Checks every block of a table file; returns its damage (empty when intact). */
export function checkTable(file: string, bytes: Uint8Array): FileDamage[] {
  const damage: FileDamage[] = [];
  if (bytes.length < FOOTER_SIZE) return [{ file, offset: 0, reason: `${bytes.length} bytes is shorter than a table footer` }];
  const footerAt = bytes.length - FOOTER_SIZE;
  if (!TABLE_MAGIC.every((b, i) => bytes[bytes.length - 8 + i] === b)) return [{ file, offset: bytes.length - 8, reason: 'bad table magic number' }];
  const readBlock = (reader: Reader, what: string): Uint8Array | undefined => {
    let offset = -1;
    try {
      offset = reader.varint();
      const size = reader.varint();
      if (offset + size + 5 > footerAt) throw new Error(`block handle ${offset}+${size} runs past the table's data`);
      const type = bytes[offset + size]!;
      const expected = unmask(u32(bytes, offset + size + 1));
      if (crc32c(bytes.subarray(offset, offset + size + 1)) !== expected) {
        damage.push({ file, offset, reason: `${what}: checksum mismatch` });
        return undefined;
      }
      const contents = bytes.subarray(offset, offset + size);
      if (type === 0) return contents;
      if (type === 1) return snappy.uncompress(contents);
      throw new Error(`block type ${type}`);
    } catch (error) {
      damage.push({ file, offset: Math.max(0, offset), reason: `${what}: ${(error as Error).message}` });
      return undefined;
    }
  };
  const footer = new Reader(bytes, footerAt, bytes.length - 8);
  const metaindex = readBlock(footer, 'metaindex block');
  const index = readBlock(footer, 'index block');
  for (const [block, what] of [
    [metaindex, 'meta block'],
    [index, 'data block'],
  ] as const) {
    if (block === undefined) continue;
    try {
      // An index entry's key is at or after every key of its block and before the next block's.
      let after = '';
      for (const { key, value } of blockEntries(block)) {
        const until = what === 'data block' ? userKey(key) : '';
        const range = what === 'data block' ? ` (keys after ${JSON.stringify(after)} up to ${JSON.stringify(until)})` : '';
        readBlock(new Reader(value, 0, value.length), `${what}${range}`);
        after = until;
      }
    } catch (error) {
      damage.push({ file, offset: 0, reason: `${what === 'data block' ? 'index' : 'metaindex'} block: ${(error as Error).message}` });
    }
  }
  return damage;
}

/** LevelDB's internal key is the user key, then 8 bytes of sequence number and type. */
const userKey = (internal: Uint8Array): string => Buffer.from(internal.subarray(0, Math.max(0, internal.length - 8))).toString('utf8');

/** A block's entries: keys are prefix-compressed against the entry before. */
export function blockEntries(block: Uint8Array): { key: Uint8Array; value: Uint8Array }[] {
  if (block.length < 4) throw new Error('block shorter than its restart count');
  const restarts = u32(block, block.length - 4);
  const end = block.length - 4 * (restarts + 1);
  if (end < 0) throw new Error(`bad restart count ${restarts}`);
  const reader = new Reader(block, 0, end);
  const entries: { key: Uint8Array; value: Uint8Array }[] = [];
  let previous: Uint8Array = new Uint8Array(0);
  while (reader.at < end) {
    const shared = reader.varint();
    const unshared = reader.varint();
    const valueLength = reader.varint();
    if (shared > previous.length) throw new Error(`an entry shares ${shared} bytes of a ${previous.length}-byte key`);
    const key = Buffer.concat([previous.subarray(0, shared), reader.slice(unshared)]);
    entries.push({ key, value: reader.slice(valueLength) });
    previous = key;
  }
  return entries;
}

const numberOf = (name: string): number => Number(/^(\d+)\./.exec(name)?.[1] ?? -1);

/**
 * Reads every log and table file of the LevelDB database in `dir`, and the manifest CURRENT names.
 * `revisionKey` is the key whose newest logged value is reported (Fairway's revision counter).
 */
export async function inspectLevelDbFiles(dir: string, revisionKey: string): Promise<LevelDbFiles> {
  const names = await readdir(dir);
  const logs = names.filter((n) => /^\d+\.log$/.test(n)).sort((a, b) => numberOf(a) - numberOf(b));
  const tables = names.filter((n) => /^\d+\.(ldb|sst)$/.test(n));
  let files = 0;
  let bytes = 0;
  const damage: FileDamage[] = [];
  const read = async (name: string): Promise<Uint8Array> => {
    const data = await readFile(join(dir, name));
    files++;
    bytes += data.length;
    return data;
  };
  const current = names.includes('CURRENT') ? (await readFile(join(dir, 'CURRENT'), 'utf8')).trim() : '';
  if (/^MANIFEST-\d+$/.test(current) && names.includes(current)) {
    const manifest = scanLog(current, await read(current));
    // LevelDB refuses a damaged manifest itself; a cut one it reads up to the cut.
    append(damage, trailing(manifest.damage, manifest.records.at(-1)?.offset ?? -1).before);
  }
  for (const name of tables) append(damage, checkTable(name, await read(name)));
  // The logs are one stream, oldest first: damage with intact records after it, in the same log or
  // a later one, lost acknowledged writes; damage after the last intact record is a cut tail.
  const scans: { name: string; scan: LogScan }[] = [];
  for (const name of logs) scans.push({ name, scan: scanLog(name, await read(name)) });
  let lastLoggedRevision: number | undefined;
  const lastIntact = scans.findLastIndex((s) => s.scan.records.length > 0);
  let tornTail: FileDamage | undefined;
  scans.forEach(({ name, scan }, index) => {
    const lastOffset = index < lastIntact ? Number.POSITIVE_INFINITY : index === lastIntact ? scan.records.at(-1)!.offset : -1;
    const split = trailing(scan.damage, lastOffset);
    append(damage, split.before);
    tornTail ??= split.after[0];
    for (const record of scan.records) {
      try {
        const value = batchValueOf(record.payload, revisionKey);
        if (value !== undefined) lastLoggedRevision = Number(value);
      } catch (error) {
        damage.push({ file: name, offset: record.offset, reason: `write batch does not decode: ${(error as Error).message}` });
      }
    }
  });
  return { files, bytes, damage, tornTail, lastLoggedRevision };
}

function trailing(damage: readonly FileDamage[], lastRecordOffset: number): { before: FileDamage[]; after: FileDamage[] } {
  return { before: damage.filter((d) => d.offset < lastRecordOffset), after: damage.filter((d) => d.offset >= lastRecordOffset) };
}

/** One line per problem, for errors and `fairway storage check`. */
export function describeDamage(dir: string, d: FileDamage): string {
  return `${join(dir, d.file)} at byte ${d.offset}: ${d.reason}`;
}
