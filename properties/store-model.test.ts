// The store against a model: random sequences of create / update /
// guaranteedUpdate / delete (with preconditions, stale resourceVersions and bad names), reads
// (get at "", "0" and N; full paged lists; lists paged across later writes; Exact lists at any
// past revision; watches from any revision), informers (list + watch, and watch with
// sendInitialEvents) and reopen, run with fc.commands on the memory and LevelDB backends. Every
// result must be what the model (support/store-model.ts) says, down to resourceVersions and
// StoreError codes. Half the runs use a 2-event window, so that 410 Expired paths are reached.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryBackend, createMemoryVolume } from '../engine/store/memory/memory-backend.ts';
import { createLevelDbBackend } from '../engine/store/leveldb/leveldb-backend.ts';
import { STORE_DEFAULTS } from '../engine/store/store.ts';
import { checkAsyncProperty, expectAsyncPropertyToFail } from './support/runner.ts';
import { storeCommands } from './support/store-commands.ts';
import { emptyModel, KINDS, observed, expected, sorted } from './support/store-model.ts';
import { RealStore, type StoreLocation, type StoreWrapper } from './support/store-real.ts';
import type { ResourceStore } from '../engine/store/store-types.ts';
import { withoutResourceVersion } from '../engine/store/codec.ts';

const SMALL_WINDOW = 2;
/** Long enough for many objects, and for a paged list to cross later writes and deletions. */
const MAX_COMMANDS = 40;
const windowCapacity = fc.constantFrom(SMALL_WINDOW, STORE_DEFAULTS.windowCapacity);

let volumes = 0;
const memoryLocation = (): StoreLocation => {
  const volume = createMemoryVolume(`model-${++volumes}`);
  return { name: volume.name, backend: () => createMemoryBackend({ volume }), cleanup: async () => undefined };
};

const levelRoot = mkdtempSync(join(tmpdir(), 'fairway-store-model-'));
let dirs = 0;
const levelDbLocation = (): StoreLocation => {
  const dir = join(levelRoot, `db-${++dirs}`);
  return { name: dir, backend: () => createLevelDbBackend({ location: dir }), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
};

function modelProperty(newLocation: () => StoreLocation, maxCommands: number, wrap?: StoreWrapper) {
  return fc.asyncProperty(windowCapacity, storeCommands(maxCommands), async (capacity, commands) => {
    const real = await RealStore.open(newLocation(), capacity, wrap);
    try {
      const model = emptyModel(capacity);
      await fc.asyncModelRun(() => ({ model, real }), commands);
      // Whatever ran, the end state is the model's: informers, gets and a full list agree.
      await real.syncInformers(model);
      for (const kind of KINDS) {
        const list = await real.resources[kind].list();
        assert.is(list.resourceVersion, String(model.revision), `${kind} list resourceVersion at the end`);
        assert.equal(list.items.map(observed), sorted(model.objects[kind].values()).map(expected), `${kind} at the end`);
      }
    } finally {
      await real.close();
    }
  });
}

test('store model: memory backend', async () => {
  await checkAsyncProperty('store model: memory', modelProperty(memoryLocation, MAX_COMMANDS), { runs: 30 });
});

test('store model: LevelDB backend', async () => {
  await checkAsyncProperty('store model: leveldb', modelProperty(levelDbLocation, MAX_COMMANDS), { runs: 10 });
});

// Controls: the same property must reject a store with one deliberate fault in front of it.
const faulty =
  (overrides: (store: ResourceStore) => Partial<ResourceStore>): StoreWrapper =>
  (store) => {
    const layer = overrides(store);
    return {
      resource: store.resource,
      get: layer.get ?? ((...a) => store.get(...a)),
      getNow: layer.getNow ?? ((...a) => store.getNow(...a)),
      list: layer.list ?? ((...a) => store.list(...a)),
      create: layer.create ?? ((...a) => store.create(...a)),
      update: layer.update ?? ((...a) => store.update(...a)),
      guaranteedUpdate: layer.guaranteedUpdate ?? ((...a) => store.guaranteedUpdate(...a)),
      delete: layer.delete ?? ((...a) => store.delete(...a)),
      watch: layer.watch ?? ((...a) => store.watch(...a)),
    };
  };

const CONTROLS: Record<string, StoreWrapper> = {
  // Optimistic concurrency lost: a stale resourceVersion overwrites instead of conflicting.
  'update ignores resourceVersion': faulty((store) => ({
    update: (object, options) => store.update(/^\d+$/.test(object.metadata?.resourceVersion ?? '') ? withoutResourceVersion(object) : object, options),
  })),
  // A continued page that loses its first item (a gap between pages).
  'continue skips an item': faulty((store) => ({
    list: async (options = {}) => {
      const page = await store.list(options);
      return options.continue === undefined || page.items.length === 0 ? page : { ...page, items: page.items.slice(1) };
    },
  })),
  // A watch from N that starts one revision late.
  'watch starts after N+1': faulty((store) => ({
    watch: (options = {}) => {
      const n = Number(options.resourceVersion ?? '');
      return store.watch(n > 0 ? { ...options, resourceVersion: String(n + 1) } : options);
    },
  })),
  // Preconditions not checked on delete.
  'delete ignores preconditions': faulty((store) => ({ delete: (name) => store.delete(name) })),
};

for (const [name, wrap] of Object.entries(CONTROLS)) {
  test(`store model control: ${name}`, async () => {
    await expectAsyncPropertyToFail(`store model control: ${name}`, modelProperty(memoryLocation, MAX_COMMANDS, wrap), { runs: 200 });
  });
}

test.after(() => rmSync(levelRoot, { recursive: true, force: true }));

test.run();
