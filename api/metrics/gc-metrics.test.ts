import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { constants } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Registry } from 'prom-client';
import { createFairwayMetrics } from './fairway-metrics.ts';
import { GC_DURATION_BUCKETS_SECONDS, GC_KIND_LABELS, gcKindLabel, registerGcMetrics } from './gc-metrics.ts';
import { parseExposition, sampleValue } from './testing/exposition.ts';

// A real gc() without --expose-gc on the test runner's command line: only a new context gets it.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as (options?: { type: 'major' | 'minor' }) => void;

const FAMILY = 'nodejs_gc_duration_seconds';

const count = (text: string, kind: string): number => sampleValue(parseExposition(text), `${FAMILY}_count`, { kind }) ?? Number.NaN;

/** PerformanceObserver callbacks arrive after the GC, on a later turn of the loop; polls rather than guessing how late. */
async function scrapeUntil(registry: Registry, done: (text: string) => boolean): Promise<string> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const text = await registry.metrics();
    if (done(text)) return text;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return registry.metrics();
}

test('V8 GC types map to prom-client kind labels; a type V8 may add later has none', () => {
  assert.is(gcKindLabel(constants.NODE_PERFORMANCE_GC_MAJOR), 'major');
  assert.is(gcKindLabel(constants.NODE_PERFORMANCE_GC_MINOR), 'minor');
  assert.is(gcKindLabel(2), 'minor', 'minor mark-compact is a young-generation collection');
  assert.is(gcKindLabel(constants.NODE_PERFORMANCE_GC_INCREMENTAL), 'incremental');
  assert.is(gcKindLabel(constants.NODE_PERFORMANCE_GC_WEAKCB), 'weakcb');
  assert.is(gcKindLabel(64), undefined);
});

test('a forced full GC is counted as kind="major", a forced scavenge as kind="minor", with prom-client help, type and buckets', async () => {
  const registry = new Registry();
  const metrics = registerGcMetrics(registry);
  try {
    const before = await registry.metrics();
    assert.match(before, `# HELP ${FAMILY} Garbage collection duration by kind, one of major, minor, incremental or weakcb.\n`);
    assert.match(before, `# TYPE ${FAMILY} histogram\n`);
    // Every kind is there from the start, at zero unless a GC already happened.
    for (const kind of GC_KIND_LABELS) assert.ok(count(before, kind) >= 0, `${kind} series in:\n${before}`);

    gc();
    const afterMajor = await scrapeUntil(registry, (text) => count(text, 'major') > count(before, 'major'));
    assert.ok(count(afterMajor, 'major') >= count(before, 'major') + 1, afterMajor);
    const samples = parseExposition(afterMajor);
    assert.ok((sampleValue(samples, `${FAMILY}_sum`, { kind: 'major' }) ?? 0) > 0, 'a full GC takes time');
    const les = samples.filter((s) => s.name === `${FAMILY}_bucket` && s.labels['kind'] === 'major').map((s) => s.labels['le']);
    assert.equal(les, [...GC_DURATION_BUCKETS_SECONDS.map(String), '+Inf']);
    assert.equal(les, ['0.001', '0.01', '0.1', '1', '2', '5', '+Inf'], "prom-client's ladder");
    assert.is(sampleValue(samples, `${FAMILY}_bucket`, { kind: 'major', le: '+Inf' }), count(afterMajor, 'major'));

    gc({ type: 'minor' });
    const afterMinor = await scrapeUntil(registry, (text) => count(text, 'minor') > count(afterMajor, 'minor'));
    assert.ok(count(afterMinor, 'minor') >= count(afterMajor, 'minor') + 1, afterMinor);
  } finally {
    metrics.stop();
  }
});

test('after stop() the observer is disconnected: later GCs are not counted', async () => {
  const registry = new Registry();
  registerGcMetrics(registry).stop();
  const before = await registry.metrics();
  // The control: a registry still observing sees the same GCs.
  const control = new Registry();
  const observing = registerGcMetrics(control);
  try {
    gc();
    await scrapeUntil(control, (text) => count(text, 'major') >= 1);
    assert.ok(count(await control.metrics(), 'major') >= 1, 'the control saw the GC');
    assert.is(count(await registry.metrics(), 'major'), count(before, 'major'));
  } finally {
    observing.stop();
  }
});

test("the server's registry (createFairwayMetrics) carries the family, and its stop() disconnects the observer", async () => {
  const metrics = createFairwayMetrics();
  metrics.stop();
  const before = await metrics.registry.metrics();
  assert.match(before, `# TYPE ${FAMILY} histogram\n`);
  const control = new Registry();
  const observing = registerGcMetrics(control);
  try {
    gc();
    await scrapeUntil(control, (text) => count(text, 'major') >= 1);
    assert.is(count(await metrics.registry.metrics(), 'major'), count(before, 'major'));
  } finally {
    observing.stop();
  }
});

test.run();
