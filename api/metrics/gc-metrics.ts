// Garbage-collection pauses of the serving process in /metrics. Every pause holds the one main
// thread, whatever priority level the work in flight belongs to, so it is time APF cannot share out;
// the isolation benchmark's trace showed storms of mark-compacts under a LIST flood
// (docs/execution-plane.md). The family is prom-client's default one (name, help, `kind` labels,
// buckets), so dashboards written for Node services read it, but it is observed here rather than
// through collectDefaultMetrics: that observer can never be disconnected, and it reads only the
// first entry of each batch.
//
//   nodejs_gc_duration_seconds{kind}   histogram, kind one of major, minor, incremental, weakcb
//
// A PerformanceObserver of V8's GC callbacks: it runs once per collection, never per request.
// Node-level measurement of the real clock: it lives in the API layer, never in engine/.

import { constants, type NodeGCPerformanceDetail, type PerformanceEntry, PerformanceObserver, type PerformanceObserverEntryList } from 'node:perf_hooks';
import { Histogram, type Registry } from 'prom-client';

/** prom-client's DEFAULT_GC_DURATION_BUCKETS. */
export const GC_DURATION_BUCKETS_SECONDS: readonly number[] = [0.001, 0.01, 0.1, 1, 2, 5];

export const GC_KIND_LABELS = ['major', 'minor', 'incremental', 'weakcb'] as const;
export type GcKindLabel = (typeof GC_KIND_LABELS)[number];

/** v8::kGCTypeMinorMarkCompact: a young-generation collection like a scavenge; perf_hooks has no constant for it. */
const GC_TYPE_MINOR_MARK_COMPACT = 2;

/** The `kind` label of a GC entry's `detail.kind` (v8::GCType); undefined for a type V8 may add later. */
export function gcKindLabel(kind: number): GcKindLabel | undefined {
  switch (kind) {
    case constants.NODE_PERFORMANCE_GC_MAJOR:
      return 'major';
    case constants.NODE_PERFORMANCE_GC_MINOR:
    case GC_TYPE_MINOR_MARK_COMPACT:
      return 'minor';
    case constants.NODE_PERFORMANCE_GC_INCREMENTAL:
      return 'incremental';
    case constants.NODE_PERFORMANCE_GC_WEAKCB:
      return 'weakcb';
    default:
      return undefined;
  }
}

export interface GcMetrics {
  /** Disconnects the observer. */
  stop(): void;
}

export function registerGcMetrics(registry: Registry): GcMetrics {
  const histogram = new Histogram({
    name: 'nodejs_gc_duration_seconds',
    help: 'Garbage collection duration by kind, one of major, minor, incremental or weakcb.',
    labelNames: ['kind'],
    buckets: [...GC_DURATION_BUCKETS_SECONDS],
    registers: [registry],
  });
  // Every kind shows from the first scrape, so rate() over a kind that has not happened yet reads 0.
  const series = new Map<GcKindLabel, { observe(value: number): void }>();
  for (const kind of GC_KIND_LABELS) {
    histogram.zero({ kind });
    series.set(kind, histogram.labels(kind));
  }
  const observer = new PerformanceObserver((list: PerformanceObserverEntryList) => {
    for (const entry of list.getEntries()) {
      // A 'gc' entry's detail (Node ≥ 16); @types/node declares it only on marks and measures.
      const label = gcKindLabel((entry as PerformanceEntry & { detail: NodeGCPerformanceDetail }).detail.kind);
      if (label !== undefined) series.get(label)?.observe(entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return { stop: () => observer.disconnect() };
}
