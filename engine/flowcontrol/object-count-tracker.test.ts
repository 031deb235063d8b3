import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { OBJECT_COUNT_POLL_MS, OBJECT_COUNT_PRUNE_MS, OBJECT_COUNT_STALE_MS, ObjectCountTracker, startObjectCountPolling } from './object-count-tracker.ts';
import { estimateListWork, type WorkEstimatorDeps } from './work-estimate.ts';

// request/object_count_tracker.go: a count older than staleTolerationThreshold (3 min) is stale; the
// pruner drops counts older than pruneInterval (1 h) every hour; a failed poll (-1) changes nothing.
test('counts go stale after three minutes without a poll and are pruned after an hour', () => {
  const clock = new SimClock(0);
  const tracker = new ObjectCountTracker(clock);
  assert.is(tracker.get('pods'), 'not-found');
  tracker.set('pods', 700);
  assert.equal(tracker.get('pods'), { count: 700 });
  clock.advance(OBJECT_COUNT_STALE_MS);
  assert.equal(tracker.get('pods'), { count: 700 }, 'exactly 3 minutes old is not stale yet');
  tracker.set('pods', -1);
  clock.advance(1);
  assert.is(tracker.get('pods'), 'stale', 'a failed poll did not refresh it');
  tracker.set('pods', 800);
  assert.equal(tracker.get('pods'), { count: 800 }, 'a good poll does');
  const stopPruning = tracker.startPruning();
  clock.advance(OBJECT_COUNT_PRUNE_MS);
  assert.is(tracker.get('pods'), 'not-found', 'pruned at the hourly pass');
  stopPruning();
});

// request/list_work_estimator.go: stale → maximum seats, unknown → minimum seats; the registry
// (registry/generic/registry/store.go startObservingCount) polls every CountMetricPollPeriod (1 min).
test('the LIST estimate follows the tracker: polled counts price the list, a count whose polls fail costs the maximum, then the minimum', () => {
  const clock = new SimClock(0);
  const tracker = new ObjectCountTracker(clock);
  let failing = false;
  const stop = startObjectCountPolling({ clock, tracker, resources: ['pods'], count: () => (failing ? -1 : 499) });
  const stopPruning = tracker.startPruning();
  const deps: WorkEstimatorDeps = { objectCount: (key) => tracker.get(key), watchCount: () => 0 };
  const seats = () =>
    estimateListWork(
      {
        requestInfo: { isResourceRequest: true, verb: 'list', apiGroup: '', resource: 'pods', subresource: '', namespace: '', name: '', path: '/api/v1/pods' },
        query: { resourceVersion: '0' },
      },
      deps,
      8,
    ).initialSeats;
  assert.is(seats(), 5, '499 objects from the cache');
  failing = true;
  clock.advance(OBJECT_COUNT_POLL_MS * 3);
  assert.is(seats(), 5, 'three minutes: still fresh');
  clock.advance(1);
  assert.is(seats(), 8, 'stale: the level maximum');
  clock.advance(OBJECT_COUNT_PRUNE_MS);
  assert.is(seats(), 1, 'pruned: unknown, the minimum');
  failing = false;
  clock.advance(OBJECT_COUNT_POLL_MS);
  assert.is(seats(), 5, 'polls that work again bring the count back');
  stop();
  stopPruning();
});

test('jittered polls wait between one and 2.2 periods', () => {
  const clock = new SimClock(0);
  const tracker = new ObjectCountTracker(clock);
  const polls: number[] = [];
  let u = 0;
  const stop = startObjectCountPolling({ clock, tracker, resources: ['pods'], count: () => (polls.push(clock.now()), 1), random: () => (u = (u + 0.5) % 1) });
  clock.advance(10 * OBJECT_COUNT_POLL_MS);
  stop();
  const gaps = polls.slice(1).map((t, i) => t - polls[i]!);
  assert.equal(gaps.slice(0, 3), [OBJECT_COUNT_POLL_MS * 1.6, OBJECT_COUNT_POLL_MS, OBJECT_COUNT_POLL_MS * 1.6]);
});

test.run();
