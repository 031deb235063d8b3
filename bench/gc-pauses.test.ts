import { constants } from 'node:perf_hooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseGcLog, pauseStatsByKind } from './gc-pauses.ts';

const MINOR = constants.NODE_PERFORMANCE_GC_MINOR;
const MAJOR = constants.NODE_PERFORMANCE_GC_MAJOR;

test('a log line per pause, a cut line left out, kinds as /metrics labels them', () => {
  const pauses = parseGcLog(`1000.000 0.5000 ${MINOR}\n1010.5 12.2500 ${MAJOR}\n1020 0.7\n1030 1.5 99\n`);
  assert.equal(pauses, [
    { startMs: 1000, durationMs: 0.5, kind: 'minor' },
    { startMs: 1010.5, durationMs: 12.25, kind: 'major' },
    { startMs: 1030, durationMs: 1.5, kind: 'other' },
  ]);
});

test('the window holds the pauses that started in it; stats by kind and over all', () => {
  const log = [0, 100, 200, 300, 400].map((t, i) => `${t} ${i + 1} ${MINOR}`).join('\n');
  const pauses = parseGcLog(`${log}\n250 20 ${MAJOR}\n1000 50 ${MAJOR}\n`);
  const stats = pauseStatsByKind(pauses, 100, 500);
  // Minor 2, 3, 4, 5 ms in 400 ms: median the 3rd of 4 (nearest rank), p99 and max the 4th.
  assert.equal(stats.minor, { count: 4, totalMs: 14, p50Ms: 4, p99Ms: 5, maxMs: 5, everyMs: 100, sortedMs: [2, 3, 4, 5] });
  assert.equal(stats.major, { count: 1, totalMs: 20, p50Ms: 20, p99Ms: 20, maxMs: 20, everyMs: 400, sortedMs: [20] });
  assert.equal(stats.all, { count: 5, totalMs: 34, p50Ms: 4, p99Ms: 20, maxMs: 20, everyMs: 80, sortedMs: [2, 3, 4, 5, 20] });
});

test.run();
