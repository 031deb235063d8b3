// Are a flow's slowest answers spread over the run, or a few episodes? The answers at or above the
// flow's p99, grouped by when they were sent: two slow ones less than `gapMs` apart are in one
// episode. A tail made of a few episodes points at rare events (a long stall, a burst of arrivals),
// one spread thin at the queue's ordinary busy periods. sim-vs-serve prints each episode beside the
// arrivals, GC pauses and run-queue stalls around it.

export interface Episode {
  /** Sent time of its first and last slow answer (ms, the driver's clock). */
  fromMs: number;
  toMs: number;
  /** Slow answers in it, and the longest's latency (ms). */
  count: number;
  worstMs: number;
}

/** `answers`: [sent ms, latency ms]; the slow ones are those with latency ≥ `thresholdMs`. */
export function episodesOf(answers: readonly (readonly [number, number])[], thresholdMs: number, gapMs: number): Episode[] {
  const slow = answers.filter(([, latency]) => latency >= thresholdMs).sort((a, b) => a[0] - b[0]);
  const episodes: Episode[] = [];
  for (const [sentMs, latencyMs] of slow) {
    const last = episodes[episodes.length - 1];
    if (last !== undefined && sentMs - last.toMs < gapMs) {
      last.toMs = sentMs;
      last.count++;
      last.worstMs = Math.max(last.worstMs, latencyMs);
    } else episodes.push({ fromMs: sentMs, toMs: sentMs, count: 1, worstMs: latencyMs });
  }
  return episodes;
}

/**
 * The answers not in flight while the client stalled: a client whose event loop was held `lag` ms
 * (a send that late) read every answer due then that much later, and measured itself. `stalls`:
 * [due, lag] of its late sends; those under `minLagMs` are ignored.
 */
export function clearOfClientStalls(
  answers: readonly (readonly [number, number])[],
  stalls: readonly (readonly [number, number])[],
  minLagMs: number,
): (readonly [number, number])[] {
  const held = stalls.filter(([, lag]) => lag >= minLagMs).map(([due, lag]) => [due, due + lag] as const);
  return answers.filter(([sent, latency]) => !held.some(([from, to]) => sent <= to && sent + latency >= from));
}
