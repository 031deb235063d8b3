// Salvaged table entries written as a LevelDB log file (the format leveldb-files.ts reads), one
// WriteBatch per entry carrying the entry's own sequence number. LevelDB's repair turns every log
// in the directory into a table and keeps each key's newest sequence number across all tables, so
// a salvaged entry takes its place among the intact tables exactly as it had it in the damaged one.

import { crc32c } from '@node-rs/crc32';
import type { SalvagedEntry } from './table-salvage.ts';

const BLOCK_SIZE = 32 * 1024;
const HEADER_SIZE = 7;
const MASK_DELTA = 0xa282ead8;

const mask = (crc: number): number => ((((crc >>> 15) | (crc << 17)) >>> 0) + MASK_DELTA) >>> 0;

function varint(value: number): number[] {
  const out: number[] = [];
  while (value >= 0x80) {
    out.push((value % 0x80) | 0x80);
    value = Math.floor(value / 0x80);
  }
  out.push(value);
  return out;
}

/** LevelDB's WriteBatch of one put or delete: sequence u64le, count u32le, tag, key[, value]. */
function writeBatchOf(entry: SalvagedEntry): Buffer {
  const header = Buffer.alloc(12);
  header.writeBigUInt64LE(entry.sequence, 0);
  header.writeUInt32LE(1, 8);
  const parts = [header, Buffer.from([entry.deleted ? 0 : 1, ...varint(entry.key.length)]), entry.key];
  if (!entry.deleted) parts.push(Buffer.from(varint(entry.value.length)), entry.value);
  return Buffer.concat(parts);
}

/** A log file holding `entries`, each record split across 32 KiB blocks as LevelDB's writer does. */
export function encodeSalvageLog(entries: readonly SalvagedEntry[]): Buffer {
  const out: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const payload = writeBatchOf(entry);
    let at = 0;
    do {
      const room = BLOCK_SIZE - (offset % BLOCK_SIZE);
      if (room < HEADER_SIZE) {
        out.push(Buffer.alloc(room));
        offset += room;
        continue;
      }
      const length = Math.min(payload.length - at, room - HEADER_SIZE);
      const first = at === 0;
      const last = at + length === payload.length;
      const type = first && last ? 1 : first ? 2 : last ? 4 : 3;
      const header = Buffer.alloc(HEADER_SIZE);
      header.writeUInt16LE(length, 4);
      header[6] = type;
      const fragment = payload.subarray(at, at + length);
      header.writeUInt32LE(mask(crc32c(Buffer.concat([header.subarray(6), fragment]))), 0);
      out.push(header, fragment);
      offset += HEADER_SIZE + length;
      at += length;
    } while (at < payload.length);
  }
  return Buffer.concat(out);
}
