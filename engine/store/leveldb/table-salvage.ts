// Reads every entry of a damaged LevelDB table (*.ldb, *.sst) that an intact data block holds.
// LevelDB's repair opens a table through its footer and index block: one damaged byte there and it
// archives the whole table, though every data block may be intact. A table is its data blocks one
// after the other from byte 0, each followed by a 5-byte trailer (type: 0 raw, 1 snappy; the masked
// crc32c of contents and type), then the filter, metaindex and index blocks and the 48-byte footer
// (leveldb-files.ts has the format). So the data blocks are found through the index when it is
// intact, and otherwise by walking that chain: from a block's start, its end is the first place
// where a trailer's checksum matches what came before it. Past a damaged block, the next start is
// the first byte from which some intact block's checksum holds, all found in one pass (see
// `nextVerifiedStart`).

import snappy from 'snappyjs';
import { blockEntries, FOOTER_SIZE, Reader, TABLE_MAGIC, u32, unmask } from './leveldb-files.ts';

/** One entry of a data block: the internal key split into user key, sequence number and kind. */
export interface SalvagedEntry {
  readonly key: Uint8Array;
  readonly sequence: bigint;
  /** A deletion marker (LevelDB's kTypeDeletion): it hides older values of its key. */
  readonly deleted: boolean;
  readonly value: Uint8Array;
}

export interface TableSalvage {
  readonly entries: SalvagedEntry[];
  /** Intact data blocks whose entries were kept. */
  readonly blocks: number;
  /** How the data blocks were found. */
  readonly via: 'index' | 'scan';
  /** Byte ranges [from, to) of the data region that no intact block covers. */
  readonly skipped: [number, number][];
}

interface Handle {
  readonly offset: number;
  readonly size: number;
}

const MAX_SEQUENCE = (1n << 56n) - 1n;

const CRC32C_TABLE = (() => {
  const table = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
    table[n] = c;
  }
  return table;
})();

/** The low byte of the register before a zero byte, by the top byte after it (a bijection for CRC tables). */
const CRC32C_UNDO = (() => {
  const undo = new Uint8Array(256).fill(0);
  const seen = new Set<number>();
  for (let i = 0; i < 256; i++) {
    undo[CRC32C_TABLE[i]! >>> 24] = i;
    seen.add(CRC32C_TABLE[i]! >>> 24);
  }
  if (seen.size !== 256) throw new Error('crc32c table: top bytes are not a bijection');
  return undo;
})();

const hasMagic = (bytes: Uint8Array): boolean => bytes.length >= FOOTER_SIZE && TABLE_MAGIC.every((b, i) => bytes[bytes.length - 8 + i] === b);

/** The footer's metaindex and index handles, or undefined when the footer is damaged. */
export function readFooter(bytes: Uint8Array): { metaindex: Handle; index: Handle } | undefined {
  if (!hasMagic(bytes)) return undefined;
  try {
    const reader = new Reader(bytes, bytes.length - FOOTER_SIZE, bytes.length - 8);
    const metaindex = { offset: reader.varint(), size: reader.varint() };
    const index = { offset: reader.varint(), size: reader.varint() };
    return [metaindex, index].every((h) => h.offset + h.size + 5 <= bytes.length - FOOTER_SIZE) ? { metaindex, index } : undefined;
  } catch {
    return undefined;
  }
}

/** A block's contents if its checksum holds and its type is known. */
function readBlock(bytes: Uint8Array, { offset, size }: Handle): Uint8Array | undefined {
  if (offset + size + 5 > bytes.length) return undefined;
  const type = bytes[offset + size];
  if ((type !== 0 && type !== 1) || crc32cOf(bytes, offset, offset + size + 1) !== unmask(u32(bytes, offset + size + 1))) return undefined;
  const contents = bytes.subarray(offset, offset + size);
  try {
    return type === 0 ? contents : snappy.uncompress(contents);
  } catch {
    return undefined;
  }
}

function crc32cOf(bytes: Uint8Array, from: number, to: number): number {
  let c = -1;
  for (let i = from; i < to; i++) c = CRC32C_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** The handles a block's values hold, if every value is exactly one handle (an index block). */
function handlesOf(block: Uint8Array): Handle[] | undefined {
  try {
    return blockEntries(block).map(({ value }) => {
      const reader = new Reader(value, 0, value.length);
      const handle = { offset: reader.varint(), size: reader.varint() };
      if (reader.at !== value.length) throw new Error('not a handle');
      return handle;
    });
  } catch {
    return undefined;
  }
}

/**
 * A data block's entries, or undefined when the contents are not a data block: bad restart array,
 * keys out of order, an internal key that is not one (LevelDB's own index and metaindex entries, a
 * filter block).
 */
function dataEntries(block: Uint8Array): SalvagedEntry[] | undefined {
  try {
    const restarts = u32(block, block.length - 4);
    const end = block.length - 4 * (restarts + 1);
    if (block.length < 4 || end < 0) return undefined;
    let previousRestart = -1;
    for (let i = 0; i < restarts; i++) {
      const at = u32(block, end + 4 * i);
      if (at <= previousRestart || at >= Math.max(end, 1) || (i === 0 && at !== 0)) return undefined;
      previousRestart = at;
    }
    const entries: SalvagedEntry[] = [];
    for (const { key, value } of blockEntries(block)) {
      if (key.length < 8 || key[key.length - 8]! > 1) return undefined;
      let tag = 0n;
      for (let i = 7; i >= 1; i--) tag = (tag << 8n) | BigInt(key[key.length - 8 + i]!);
      if (tag === MAX_SEQUENCE) return undefined; // a separator key of an index block
      const entry = { key: key.subarray(0, key.length - 8), sequence: tag, deleted: key[key.length - 8] === 0, value };
      const last = entries.at(-1);
      if (last !== undefined) {
        const order = Buffer.compare(last.key, entry.key);
        if (order > 0 || (order === 0 && last.sequence <= entry.sequence)) return undefined;
      }
      entries.push(entry);
    }
    return entries;
  } catch {
    return undefined;
  }
}

/**
 * The data blocks an intact index block names, each with its entries (undefined when the block is
 * damaged); undefined when the footer or the index block is damaged.
 */
export function indexedBlocks(bytes: Uint8Array): { offset: number; size: number; entries: SalvagedEntry[] | undefined }[] | undefined {
  const footer = readFooter(bytes);
  const index = footer === undefined ? undefined : readBlock(bytes, footer.index);
  return (index === undefined ? undefined : handlesOf(index))?.map((handle) => {
    const block = readBlock(bytes, handle);
    return { ...handle, entries: block === undefined ? undefined : dataEntries(block) };
  });
}

/** Every entry of every intact data block of the table `bytes`. */
export function salvageTable(bytes: Uint8Array): TableSalvage {
  const indexed = indexedBlocks(bytes);
  if (indexed !== undefined) {
    const intact = indexed.filter((b) => b.entries !== undefined);
    return {
      entries: intact.flatMap((b) => b.entries!),
      blocks: intact.length,
      via: 'index',
      skipped: indexed.filter((b) => b.entries === undefined).map((b) => [b.offset, b.offset + b.size + 5]),
    };
  }
  const footer = readFooter(bytes);
  // The data region ends where the metaindex block begins, if the footer's handle to it holds;
  // else the walk goes on to the footer, or to the end of a file without one (cut, or its magic
  // damaged). The blocks after the data are told apart by their contents.
  const limit =
    footer !== undefined && readBlock(bytes, footer.metaindex) !== undefined
      ? footer.metaindex.offset
      : hasMagic(bytes)
        ? bytes.length - FOOTER_SIZE
        : bytes.length;
  return scanDataBlocks(bytes, limit, footer === undefined ? [] : damagedIndexStarts(bytes, footer.index));
}

/**
 * The block starts a damaged index block still names: its entries up to the damage, each block
 * checked by its own checksum. They let the walk go on past a damaged data block at once.
 */
function damagedIndexStarts(bytes: Uint8Array, handle: Handle): number[] {
  const contents = bytes.subarray(handle.offset, handle.offset + handle.size);
  const starts: number[] = [];
  try {
    const block = bytes[handle.offset + handle.size] === 1 ? snappy.uncompress(contents) : contents;
    const end = block.length - 4 * (u32(block, block.length - 4) + 1);
    const reader = new Reader(block, 0, Math.max(0, end));
    while (reader.at < reader.end) {
      reader.varint(); // shared: an index block restarts at every entry
      const unshared = reader.varint();
      const valueLength = reader.varint();
      reader.slice(unshared);
      const value = new Reader(reader.slice(valueLength), 0, valueLength);
      const data = { offset: value.varint(), size: value.varint() };
      if (readBlock(bytes, data) !== undefined) starts.push(data.offset);
    }
  } catch {
    // What follows the damage is not read.
  }
  return starts.sort((a, b) => a - b);
}

/** Walks the chain of blocks in bytes[0, limit), resynchronising past damage. */
function scanDataBlocks(bytes: Uint8Array, limit: number, known: readonly number[]): TableSalvage {
  const entries: SalvagedEntry[] = [];
  const skipped: [number, number][] = [];
  let blocks = 0;
  let start = 0;
  while (start < limit) {
    const found = nextBlock(bytes, start, limit);
    if (found !== undefined) {
      entries.push(...found.entries);
      if (found.data) blocks++;
      start = found.end + 5;
      continue;
    }
    // Past damage: the first block whose checksum holds, looked for only up to the next block the
    // damaged index names (it may have lost the entries of some blocks before that one).
    const named = known.find((k) => k > start);
    const next = nextVerifiedStart(bytes, start, named ?? limit) ?? named ?? limit;
    skipped.push([start, next]);
    start = next;
  }
  return { entries, blocks, via: 'scan', skipped };
}

/** a·b modulo the crc32c polynomial, in the register's reflected bit order (zlib's multmodp). */
function multiplyModPolynomial(a: number, b: number): number {
  // Signed 32-bit throughout: values past 2^30 would otherwise be allocated as heap numbers.
  let product = 0;
  for (let rest = a | 0; rest !== 0; rest <<= 1) {
    if (rest < 0) product ^= b; // the top bit: this power of x is in a
    b = b & 1 ? (b >>> 1) ^ 0x82f63b78 : b >>> 1;
  }
  return product;
}

/** One step of the CRC register over a zero byte, undone. */
const undoZeroByte = (c: number): number => {
  const low = CRC32C_UNDO[c >>> 24]!;
  return ((c ^ CRC32C_TABLE[low]!) << 8) | low;
};

/**
 * The first t in (from, limit) where a block with an intact trailer starts, in one pass. The crc32c
 * register is affine in its starting state: with P(p) the register after bytes[from, p) from zero
 * and Z the step over a zero byte, the crc of bytes[t, e] from the usual all-ones start is
 * ~(Z^(e+1-t)(~0 ^ P(t)) ^ P(e+1)). It equals the trailer's checksum c(e) exactly when
 * Z^-t(~0 ^ P(t)) = Z^-(e+1)(P(e+1) ^ ~c(e)): each side depends on one end only, so every start is
 * matched with every end through a map. Z is a product with x^8 modulo the polynomial, so Z^-p is
 * one with x^-8p, kept as it goes.
 */
function nextVerifiedStart(bytes: Uint8Array, from: number, limit: number): number | undefined {
  const n = limit - from;
  const starts = new Int32Array(n + 1);
  const ends = new Map<number, number[]>();
  let inverse = 1 << 31; // x^-8p mod the polynomial; the register's top bit is x^0
  const apply = (v: number): number => multiplyModPolynomial(v, inverse);
  let register = 0;
  for (let p = 0; p <= n; p++) {
    starts[p] = apply(~register);
    const end = from + p - 1;
    if (p > 0 && end + 5 <= limit && bytes[end]! <= 1) {
      const side = apply(register ^ ~unmask(u32(bytes, end + 1)));
      ends.set(side, [...(ends.get(side) ?? []), end]);
    }
    if (p === n) break;
    register = CRC32C_TABLE[(register ^ bytes[from + p]!) & 0xff]! ^ (register >>> 8);
    inverse = undoZeroByte(inverse);
  }
  for (let p = 1; p < n; p++) {
    const matching = ends.get(starts[p]!);
    if (matching === undefined) continue;
    for (const end of matching) {
      if (end >= from + p && readBlock(bytes, { offset: from + p, size: end - from - p }) !== undefined) return from + p;
    }
  }
  return undefined;
}

/**
 * The block that starts at `start`: the first end whose trailer's checksum matches. Only a data
 * block's entries are kept; the table's other blocks (filter, metaindex, index) do not parse as one.
 */
function nextBlock(bytes: Uint8Array, start: number, limit: number): { end: number; data: boolean; entries: SalvagedEntry[] } | undefined {
  let c = -1;
  for (let end = start; end + 5 <= limit; end++) {
    const type = bytes[end]!;
    const withType = CRC32C_TABLE[(c ^ type) & 0xff]! ^ (c >>> 8);
    if ((type === 0 || type === 1) && ~withType >>> 0 === unmask(u32(bytes, end + 1))) {
      const block = readBlock(bytes, { offset: start, size: end - start });
      if (block !== undefined) {
        // An index block's keys may be data keys too; its values are the handles of intact blocks.
        const handles = handlesOf(block);
        const index = handles !== undefined && handles.length > 0 && handles.every((h) => h.offset < start && readBlock(bytes, h) !== undefined);
        const found = index ? undefined : dataEntries(block);
        return { end, data: found !== undefined, entries: found ?? [] };
      }
    }
    c = withType;
  }
  return undefined;
}

/** The newest entry of each user key (LevelDB's rule: the highest sequence number wins). */
export function newestPerKey(entries: Iterable<SalvagedEntry>): SalvagedEntry[] {
  const newest = new Map<string, SalvagedEntry>();
  for (const entry of entries) {
    const id = Buffer.from(entry.key).toString('latin1');
    const held = newest.get(id);
    if (held === undefined || held.sequence < entry.sequence) newest.set(id, entry);
  }
  return [...newest.values()];
}
