// A request's fair-queuing work in SeatSeconds units (1e-8 seat·s), restated from apf-semantics
// 6.1 with exact integer arithmetic: `round(seats × ns / 10)` with Go's half-away-from-zero
// rounding, G = 3 ms. Used by the harness to find which queue head the dispatch rule must pick.

const G_NS = 3_000_000n;

/** round(n / 10) for a non-negative bigint, halves up (= away from zero). */
function roundTenth(n: bigint): bigint {
  return (n + 5n) / 10n;
}

/** Milliseconds to whole nanoseconds, halves away from zero (the engine's documented conversion). */
export function msToNs(ms: number): bigint {
  const ns = ms * 1e6;
  const whole = Math.trunc(ns);
  return BigInt(Math.abs(ns - whole) >= 0.5 ? whole + Math.sign(ns) : whole);
}

export function referenceTotalWork(initialSeats: number, finalSeats: number, additionalLatencyMs: number): bigint {
  return roundTenth(BigInt(initialSeats) * G_NS) + roundTenth(BigInt(finalSeats) * msToNs(additionalLatencyMs));
}
