// The writer process of the crash test (crash.test.ts): it opens a LevelDB store, then several
// concurrent writers create, update and delete objects as fast as they can, printing one line per
// acknowledged write. The parent kills it with SIGKILL at a random point and checks that every
// acknowledged write survived. Usage: crash-child.ts <data dir> <run id> <seed>
//
// Lines (stdout): `ready <revision>`, `put <name> <version> <rv>` once a create/update is
// acknowledged, `deleting <name>` before a delete is sent, `deleted <name> <rv>` once it is
// acknowledged. Every object's spec carries its version, a payload and the payload's hash.

import { realClock } from '../../../clock.ts';
import { createPrng } from '../../../random.ts';
import type { KubeObject } from '../../../resources/types.ts';
import { createLevelDbBackend } from '../leveldb-backend.ts';
import { createStore } from '../../store.ts';
import { payloadSum } from './crash-payload.ts';
import { PLC } from '../../testing/suite-kit.ts';

const [dir, runId, seed] = process.argv.slice(2);
if (dir === undefined || runId === undefined || seed === undefined) {
  process.stderr.write('usage: crash-child.ts <data dir> <run id> <seed>\n');
  process.exit(2);
}

const say = (line: string): void => void process.stdout.write(`${line}\n`);
const prng = createPrng(`${seed}:${runId}`);
const store = createStore({ backend: createLevelDbBackend({ location: dir, eventLogCapacity: 500 }), clock: realClock() });
await store.open();
const plcs = store.for(PLC);
say(`ready ${store.revision()}`);

function objectAt(name: string, version: number): KubeObject {
  const payload = `${name}:${version}:${'x'.repeat(50 + prng.int(400))}`;
  return { apiVersion: PLC.apiVersion, kind: PLC.kind, metadata: { name, uid: `uid-${name}` }, spec: { version, payload, sum: payloadSum(payload) } };
}

async function writer(id: number): Promise<never> {
  for (let serial = 0; ; serial++) {
    const name = `r${runId}-w${id}-${serial}`;
    let current = await plcs.create(objectAt(name, 0));
    say(`put ${name} 0 ${current.metadata!.resourceVersion}`);
    const updates = prng.int(4);
    for (let version = 1; version <= updates; version++) {
      current = await plcs.update({ ...objectAt(name, version), metadata: { ...current.metadata } });
      say(`put ${name} ${version} ${current.metadata!.resourceVersion}`);
    }
    if (prng.next() < 0.3) {
      say(`deleting ${name}`);
      const gone = await plcs.delete(name);
      say(`deleted ${name} ${gone.metadata!.resourceVersion}`);
    }
  }
}

await Promise.all(Array.from({ length: 8 }, (_, id) => writer(id)));
