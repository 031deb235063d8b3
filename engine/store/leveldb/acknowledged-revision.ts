// The newest revision the LevelDB backend has acknowledged, kept in a small file of its own beside
// the database (`ACKNOWLEDGED-REVISION`; LevelDB ignores names it did not make). It is written and
// fdatasync'd after each group commit is on disk and before any of its writers is answered, so it
// never runs ahead of the data and never behind an acknowledgement. A database that opens at a lower
// revision has lost acknowledged writes (a truncated or damaged log, a lost table, an old copy), which
// LevelDB cannot see by itself, and must not hand those resourceVersions out again.
//
// Two 32-byte slots, written alternately, each: "FWACK1\0\0", the revision (u64, big-endian), the
// crc32c of those 16 bytes, zero padding. A write torn by a crash damages one slot at most; the other
// still holds an older revision, which is a weaker but still true bound.

import { crc32c } from '@node-rs/crc32';
import { open, readFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export const ACKNOWLEDGED_FILE = 'ACKNOWLEDGED-REVISION';

const SLOT_SIZE = 32;
const MAGIC = Buffer.from('FWACK1\0\0', 'latin1');
const TWO_TO_32 = 2 ** 32;

export type AcknowledgedRead = { kind: 'missing' } | { kind: 'ok'; revision: number } | { kind: 'damaged'; reason: string };

function encodeSlot(slot: Buffer, revision: number): void {
  slot.fill(0);
  MAGIC.copy(slot, 0);
  slot.writeUInt32BE(Math.floor(revision / TWO_TO_32), 8);
  slot.writeUInt32BE(revision % TWO_TO_32, 12);
  slot.writeUInt32BE(crc32c(slot.subarray(0, 16)), 16);
}

function decodeSlot(slot: Buffer): number | undefined {
  if (slot.length < 20 || !slot.subarray(0, 8).equals(MAGIC)) return undefined;
  if (slot.readUInt32BE(16) !== crc32c(slot.subarray(0, 16))) return undefined;
  const revision = slot.readUInt32BE(8) * TWO_TO_32 + slot.readUInt32BE(12);
  return Number.isSafeInteger(revision) ? revision : undefined;
}

/** Reads the file in `dir`: the newer of its intact slots. */
export async function readAcknowledgedRevision(dir: string): Promise<AcknowledgedRead> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(dir, ACKNOWLEDGED_FILE));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { kind: 'missing' };
    throw error;
  }
  const slots = [decodeSlot(bytes.subarray(0, SLOT_SIZE)), decodeSlot(bytes.subarray(SLOT_SIZE, 2 * SLOT_SIZE))].filter((r) => r !== undefined);
  if (slots.length === 0) return { kind: 'damaged', reason: `${bytes.length} bytes, no intact record` };
  return { kind: 'ok', revision: Math.max(...slots) };
}

/** The open file; `record` is called once per group commit, never concurrently. */
export class AcknowledgedRevision {
  private readonly slots = [Buffer.alloc(SLOT_SIZE), Buffer.alloc(SLOT_SIZE)];
  private writes = 0;

  private constructor(
    private readonly handle: FileHandle,
    private last: number,
  ) {}

  get revision(): number {
    return this.last;
  }

  /** Opens (creating it if needed) the file in `dir` and records `revision` in both slots. */
  static async open(dir: string, revision: number): Promise<AcknowledgedRevision> {
    const path = join(dir, ACKNOWLEDGED_FILE);
    let handle: FileHandle;
    let created = false;
    try {
      handle = await open(path, 'r+');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      handle = await open(path, 'wx+', 0o600);
      created = true;
    }
    const file = new AcknowledgedRevision(handle, revision);
    try {
      // One slot at a time: a crash while rewriting the file still leaves one intact slot.
      for (const index of [0, 1]) {
        encodeSlot(file.slots[index]!, revision);
        await handle.write(file.slots[index]!, 0, SLOT_SIZE, index * SLOT_SIZE);
        await handle.datasync();
      }
      if (created) await syncDirectory(dir);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
    return file;
  }

  /** Durably records `revision` (a no-op when it is not newer). */
  async record(revision: number): Promise<void> {
    if (revision <= this.last) return;
    const index = this.writes++ % 2;
    const slot = this.slots[index]!;
    encodeSlot(slot, revision);
    await this.handle.write(slot, 0, SLOT_SIZE, index * SLOT_SIZE);
    await this.handle.datasync();
    this.last = revision;
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}

/** Makes a file created in `dir` survive a crash (its directory entry is data of the directory). */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
