import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adoptWrittenObject } from '../../engine/store/cached-object.ts';
import { encodeObject } from '../../engine/store/codec.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import type { Executor, Work } from '../../workers/executor.ts';
import { createInlineExecutor } from '../../workers/inline-executor.ts';
import { cacheJson } from './encoded-items.ts';

const forms = (count: number, prefix = 'o') =>
  Array.from({ length: count }, (_, i) => {
    const object: KubeObject = { kind: 'PriorityLevelConfiguration', metadata: { name: `${prefix}-${i}`, labels: { a: '<b>' } } };
    return adoptWrittenObject(`/r/${prefix}-${i}`, `${prefix}-${i}`, object, i + 1, encodeObject(object));
  });

/** An executor that runs inline once released, counting the objects each call encodes. */
function gatedExecutor(options: { fail?: boolean } = {}) {
  const inline = createInlineExecutor();
  const calls: number[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const executor: Executor = {
    async execute<R>(work: Work): Promise<R> {
      calls.push((work.payload as { objects: unknown[] }).objects.length);
      await gate;
      if (options.fail) throw new Error('worker died');
      return inline.execute<R>(work);
    },
    close: () => inline.close(),
  };
  return { executor, calls, release };
}

test("cacheJson caches each object's Go-escaped JSON and skips objects already cached", async () => {
  const items = forms(3);
  await cacheJson(items, createInlineExecutor());
  assert.equal(
    items.map((f) => f.jsonBytes?.toString()),
    items.map((f) => JSON.stringify(f.object).replace('<', '\\u003c').replace('>', '\\u003e')),
  );
  const { executor, calls, release } = gatedExecutor();
  release();
  await cacheJson(items, executor);
  assert.equal(calls, [], 'nothing left to encode');
});

test('concurrent requests for the same objects share one encoding', async () => {
  const items = forms(10);
  const { executor, calls, release } = gatedExecutor();
  const first = cacheJson(items, executor);
  const second = cacheJson(items, executor);
  const overlapping = cacheJson([...items.slice(5), ...forms(2, 'new')], executor);
  release();
  await Promise.all([first, second, overlapping]);
  assert.equal(calls, [10, 2], 'the second request waited for the first; the third encoded only what nobody was encoding');
  assert.ok(items.every((f) => f.jsonBytes !== undefined));
});

test('a failed encoding fails the request that ran it; a request that waited for it encodes for itself', async () => {
  const items = forms(4);
  const failing = gatedExecutor({ fail: true });
  const first = cacheJson(items, failing.executor);
  const waiting = cacheJson(items, createInlineExecutor());
  failing.release();
  await first.then(
    () => assert.unreachable('the failure reaches the request whose work failed'),
    (error: Error) => assert.is(error.message, 'worker died'),
  );
  await waiting;
  assert.ok(items.every((f) => f.jsonBytes !== undefined));
});

test.run();
