import { suite } from 'uvu';
import { ClassicLevel } from 'classic-level';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLevelDbBackend } from './leveldb-backend.ts';
import { splitTrailer, withTrailer } from './leveldb-layout.ts';
import { storeSuite } from '../store-suite.ts';

const test = suite('leveldb backend');
const root = mkdtempSync(join(tmpdir(), 'fairway-leveldb-suite-'));
let dirs = 0;

await storeSuite(test, {
  name: 'leveldb',
  location: async () => {
    const dir = join(root, `db-${++dirs}`);
    return {
      backend: (options = {}) => createLevelDbBackend({ location: dir, ...options }),
      writeRawValue: async (key, value) => {
        const db = new ClassicLevel<string, Uint8Array>(dir, { keyEncoding: 'utf8', valueEncoding: 'view' });
        await db.open();
        const old = await db.get(key);
        const modRevision = old === undefined ? 1 : splitTrailer(key, old).modRevision;
        await db.put(key, withTrailer(value, modRevision), { sync: true });
        await db.close();
      },
      corruptFiles: async () => {
        const manifest = readdirSync(dir).find((f) => f.startsWith('MANIFEST-'))!;
        const bytes = readFileSync(join(dir, manifest));
        bytes.fill(0x55, 0, Math.min(bytes.length, 64));
        writeFileSync(join(dir, manifest), bytes);
      },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  },
});

test.after(() => rmSync(root, { recursive: true, force: true }));
test.run();
