import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import type { KubeObject } from '../resources/types.ts';
import { createMemoryBackend } from './memory/memory-backend.ts';
import { createStore } from './store.ts';
import { PLC, plc, settle } from './testing/suite-kit.ts';
import { watchObservable } from './watch-observable.ts';

test('a watch as an Observable: events in order, complete when the store closes, stop on unsubscribe', async () => {
  const store = createStore({ backend: createMemoryBackend(), clock: new SimClock() });
  await store.open();
  const plcs = store.for(PLC);
  await plcs.create(plc('a'));
  const seen: string[] = [];
  let completed = false;
  const watcher = await plcs.watch({ resourceVersion: '0' });
  watchObservable(watcher).subscribe({
    next: (e) => seen.push(`${e.type} ${(e.object as KubeObject).metadata?.name}`),
    complete: () => (completed = true),
  });
  await plcs.create(plc('b'));
  await settle();
  assert.equal(seen, ['ADDED a', 'ADDED b']);
  const other = await plcs.watch({ resourceVersion: '0' });
  const subscription = watchObservable(other).subscribe(() => undefined);
  subscription.unsubscribe();
  assert.ok(other.stopped);
  await store.close();
  await settle();
  assert.ok(completed);
});

test.run();
