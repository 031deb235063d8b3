import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { interval, take, timer, delay, of } from 'rxjs';
import { SimClock } from './sim-clock.ts';
import { toRxScheduler } from './clock-adapters.ts';

test('RxJS interval and delay run on virtual time', () => {
  const clock = new SimClock();
  const scheduler = toRxScheduler(clock);
  const ticks: number[] = [];
  interval(10_000, scheduler)
    .pipe(take(3))
    .subscribe(() => ticks.push(clock.now()));
  const delayed: number[] = [];
  of('x')
    .pipe(delay(250, scheduler))
    .subscribe(() => delayed.push(clock.now()));
  clock.advance(60_000);
  assert.equal(ticks, [10_000, 20_000, 30_000]);
  assert.equal(delayed, [250]);
});

test('unsubscribing cancels pending virtual work', () => {
  const clock = new SimClock();
  let fired = false;
  const sub = timer(100, toRxScheduler(clock)).subscribe(() => (fired = true));
  sub.unsubscribe();
  clock.advance(1_000);
  assert.is(fired, false);
  assert.is(clock.pending, 0);
});

test.run();
