import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatRfc3339, formatRfc3339Nano, MAX_TIMER_DELAY_MS, realClock } from './clock.ts';

test('RFC 3339 formats match Go (fraction to the microsecond, trailing zeros trimmed)', () => {
  const t = Date.UTC(2026, 10, 21, 5, 11, 26, 123) + 0.456;
  assert.is(formatRfc3339(t), '2026-11-21T05:11:26Z');
  assert.is(formatRfc3339Nano(t), '2026-11-21T05:11:26.123456Z');
  assert.is(formatRfc3339Nano(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00Z');
});

test('the real clock never goes backwards and fires its timers', async () => {
  const clock = realClock();
  const a = clock.now();
  await new Promise<void>((resolve) => clock.after(1, resolve));
  assert.ok(clock.now() >= a);
  let fired = false;
  const cancel = clock.after(0, () => (fired = true));
  cancel();
  await new Promise((r) => setTimeout(r, 5));
  assert.is(fired, false);
});

test('a real-clock timer longer than Node can keep (2^31 ms) does not fire early', async () => {
  const clock = realClock();
  let fired = 0;
  const cancelLong = clock.after(MAX_TIMER_DELAY_MS + 1, () => fired++);
  const cancelYears = clock.after(2_147_484_000 * 1000, () => fired++);
  const cancelForever = clock.after(Number.POSITIVE_INFINITY, () => fired++);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.is(fired, 0, 'Node fires an overflowed delay after 1 ms');
  cancelLong();
  cancelYears();
  cancelForever();
});

test('a real-clock timer told not to keep the process alive does not; the default does', () => {
  const clock = realClock();
  const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;
  const before = timers();
  const cancels = [clock.after(60_000, () => {}, { keepsProcessAlive: false }), clock.after(MAX_TIMER_DELAY_MS * 2, () => {}, { keepsProcessAlive: false })];
  assert.is(timers(), before, 'neither the short nor the chained long timer is counted as keeping the process alive');
  cancels.push(clock.after(60_000, () => {}));
  assert.is(timers(), before + 1);
  for (const cancel of cancels) cancel();
});

test.run();
