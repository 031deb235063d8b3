import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  durationMsToNs,
  durationPerSeatNs,
  ESTIMATED_SERVICE_DURATION_MS,
  ESTIMATED_SERVICE_DURATION_NS,
  formatSeatSeconds,
  MAX_SEAT_SECONDS,
  seatSecondsToFloat,
  seatsTimesDuration,
  seatsTimesDurationMs,
  totalWork,
} from './seat-seconds.ts';

test('SeatSeconds formatting (upstream seat_seconds_test vectors)', () => {
  assert.is(formatSeatSeconds(1n), '0.00000001ss');
  assert.is(formatSeatSeconds(0n), '0.00000000ss');
  assert.is(formatSeatSeconds(seatsTimesDurationMs(1, 1000)), '1.00000000ss');
  assert.is(formatSeatSeconds(seatsTimesDurationMs(123, 100)), '12.30000000ss');
  assert.is(formatSeatSeconds(seatsTimesDurationMs(1203, 10)), '12.03000000ss');
  assert.is(formatSeatSeconds(MAX_SEAT_SECONDS), '184467440737.09551615ss');
  // Negative amounts wrap as Go's uint64 would.
  assert.is(formatSeatSeconds(-1n), '184467440737.09551615ss');
});

test('seatsTimesDuration is round(seats * ns / 10), signed', () => {
  assert.is(seatsTimesDuration(1, 1_000_000_000), 100_000_000n);
  assert.is(seatsTimesDuration(1, 15), 2n); // 1.5 rounds away from zero
  assert.is(seatsTimesDuration(1, -15), -2n);
  assert.is(seatsTimesDuration(2.5, 3_000_000), 750_000n);
  assert.is(seatsTimesDuration(3, 5_000_000n), 1_500_000n);
  assert.is(seatsTimesDurationMs(1, -2), -200_000n);
});

test('11.7: totalWork in SeatSeconds units', () => {
  assert.is(ESTIMATED_SERVICE_DURATION_MS, 3);
  assert.is(ESTIMATED_SERVICE_DURATION_NS, 3_000_000);
  const single = totalWork({ initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  assert.is(single, 300_000n);
  assert.is(formatSeatSeconds(single), '0.00300000ss');
  const withEvents = totalWork({ initialSeats: 1, finalSeats: 3, additionalLatencyMs: 5 });
  assert.is(withEvents, 1_800_000n);
  assert.is(formatSeatSeconds(withEvents), '0.01800000ss');
});

test('millisecond inputs convert to whole nanoseconds without float artefacts', () => {
  assert.is(durationMsToNs(0.1), 100_000);
  assert.is(durationMsToNs(5), 5_000_000);
  assert.is(durationMsToNs(0.0000004), 0);
  assert.is(seatsTimesDurationMs(10, 0.3), 300_000n);
  assert.throws(() => durationMsToNs(Infinity), /not finite/);
});

test('durationPerSeat reshapes work into a duration at a given width (truncating ns)', () => {
  assert.is(durationPerSeatNs(seatsTimesDuration(20, 5_000_000), 10), 10_000_000);
  assert.is(durationPerSeatNs(seatsTimesDuration(11, 5_000_000), 10), 5_500_000);
  assert.is(durationPerSeatNs(1n, 3), 3);
  assert.is(seatSecondsToFloat(150_000_000n), 1.5);
});

test.run();
