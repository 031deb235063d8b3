import { suite } from 'uvu';
import { createMemoryBackend, createMemoryVolume } from './memory-backend.ts';
import { storeSuite } from '../store-suite.ts';

const test = suite('memory backend');
let volumes = 0;

await storeSuite(test, {
  name: 'memory',
  location: async () => {
    const volume = createMemoryVolume(`suite-${++volumes}`);
    return {
      backend: (options = {}) => createMemoryBackend({ volume, ...options }),
      writeRawValue: async (key, value) => {
        const entry = volume.data.get(key);
        volume.data.set(key, { value, modRevision: entry?.modRevision ?? volume.revision });
      },
      cleanup: async () => undefined,
    };
  },
});

test.run();
