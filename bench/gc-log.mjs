// Every GC pause of the process it is preloaded into, one line each, appended to the file named by
// FAIRWAY_GC_LOG: `<start, ms since the epoch> <duration ms> <v8 GC type>`. /metrics has the pauses
// only as a histogram of 1/10/100 ms buckets; sim-vs-serve needs each pause (its time, for the
// intervals, and its length, for the p99 and the maximum). The observer hears batches of entries,
// so one write per batch, not per pause.
//
//   node --import ./bench/gc-log.mjs …   (FAIRWAY_GC_LOG=/tmp/gc.log)
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

const file = process.env.FAIRWAY_GC_LOG;
if (file !== undefined && file !== '') {
  new PerformanceObserver((list) => {
    let lines = '';
    for (const entry of list.getEntries()) {
      const startMs = (performance.timeOrigin + entry.startTime).toFixed(3);
      lines += `${startMs} ${entry.duration.toFixed(4)} ${entry.detail?.kind}\n`;
    }
    appendFileSync(file, lines);
  }).observe({ entryTypes: ['gc'] });
}
