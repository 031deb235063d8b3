import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { adoptWrittenObject } from '../../engine/store/cached-object.ts';
import { encodeObject } from '../../engine/store/codec.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import type { Executor, Work } from '../../workers/executor.ts';
import { createInlineExecutor } from '../../workers/inline-executor.ts';
import { cacheJson } from './encoded-items.ts';
import { negotiate } from './resource-output.ts';
import type { RequestContext } from '../request/http-context.ts';

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

test('negotiate answers each request for its own Accept header, meta group and variant, whatever the one before asked', () => {
  const request = (accept: string | undefined) =>
    ({ req: { headers: accept === undefined ? {} : { accept } }, query: new URLSearchParams() }) as unknown as RequestContext;
  const asked = (accept: string | undefined, group: string, watch: boolean) => {
    try {
      const output = negotiate(request(accept), group, { conversions: true, watch });
      return `${output.mediaType} ${output.conversion ?? '-'}`;
    } catch (error) {
      return `${(error as Error).name}`;
    }
  };
  const table = 'application/json;as=Table;v=v1;g=meta.k8s.io';
  const sequence: [string | undefined, string, boolean, string][] = [
    ['application/json', 'meta.k8s.io', false, 'application/json -'],
    [`${'application/'}${'json'}`, 'meta.k8s.io', false, 'application/json -'],
    ['application/yaml', 'meta.k8s.io', false, 'application/yaml -'],
    ['application/json', 'meta.k8s.io', false, 'application/json -'],
    [table, 'meta.k8s.io', false, 'application/json Table'],
    [table, 'other.group', false, 'ApiError'],
    [table, 'meta.k8s.io', true, 'application/json Table'],
    [undefined, 'meta.k8s.io', false, 'application/json -'],
    ['application/yaml', 'meta.k8s.io', true, 'application/yaml -'],
  ];
  assert.equal(
    sequence.map(([accept, group, watch]) => asked(accept, group, watch)),
    sequence.map(([, , , expected]) => expected),
  );
});

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
