// When the server's main thread wanted its core and did not get it: the kernel's run-queue wait of
// the thread (/proc/<pid>/task/<tid>/schedstat: ns on a CPU, ns waiting runnable, timeslices),
// sampled every few milliseconds. A wait of many milliseconds in a row is a stall: the event loop
// makes no progress, as in a GC pause, while another process holds the core. sim-vs-serve prints
// them beside the GC pauses and gives both to the simulator as `server.pauses`.

import { readFileSync } from 'node:fs';

export interface WaitSample {
  /** performance.now() of the read. */
  atMs: number;
  /** The thread's run-queue wait since it started (ns). */
  waitNs: number;
  /** The hypervisor's steal on the cores asked for since boot (ms, in 10 ms ticks): a stall the guest's run queue does not see. */
  stealMs: number;
}

/** /proc/stat's steal of cpu0 … cpu(cores − 1), in ms (USER_HZ 100). */
export function stealMs(cores: number): number {
  let ticks = 0;
  for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
    const fields = line.split(/\s+/);
    const cpu = /^cpu(\d+)$/.exec(fields[0] ?? '');
    if (cpu !== null && Number(cpu[1]) < cores) ticks += Number(fields[8] ?? 0);
  }
  return ticks * 10;
}

/** Reads the thread's schedstat (and the steal of the first `cores` cores) every `everyMs` until stopped; what it read, in order. */
export function sampleRunQueueWait(pid: number, tid: number, cores: number, everyMs: number): () => WaitSample[] {
  const samples: WaitSample[] = [];
  const read = () => {
    try {
      const waitNs = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]);
      if (Number.isFinite(waitNs)) samples.push({ atMs: performance.now(), waitNs, stealMs: stealMs(cores) });
    } catch {
      // The process ended: nothing more to read.
    }
  };
  read();
  const timer = setInterval(read, everyMs);
  return () => {
    clearInterval(timer);
    read();
    return samples;
  };
}

/**
 * The stalls in the samples: runs of consecutive intervals each with at least `minWaitMs` of wait,
 * each stall their summed wait (ms). Shorter waits (the kernel interleaving the thread with a
 * waking one) count in `totalMs` only.
 */
export function stallsOf(samples: readonly WaitSample[], minWaitMs: number): { stallsMs: number[]; totalMs: number } {
  const stallsMs: number[] = [];
  let totalMs = 0;
  let runMs = 0;
  for (let i = 1; i < samples.length; i++) {
    const waitMs = (samples[i]!.waitNs - samples[i - 1]!.waitNs) / 1e6;
    totalMs += waitMs;
    if (waitMs >= minWaitMs) runMs += waitMs;
    else if (runMs > 0) {
      stallsMs.push(runMs);
      runMs = 0;
    }
  }
  if (runMs > 0) stallsMs.push(runMs);
  return { stallsMs, totalMs };
}

/**
 * The hypervisor's steal in stalls: /proc/stat counts it in 10 ms ticks, so a long steal shows as a
 * tick every other read or so; ticks less than `gapMs` apart are one stall, its length their sum (ms).
 */
export function stealStallsOf(samples: readonly WaitSample[], gapMs: number): number[] {
  const stallsMs: number[] = [];
  let lastTickAtMs = Number.NEGATIVE_INFINITY;
  for (let i = 1; i < samples.length; i++) {
    const stolenMs = samples[i]!.stealMs - samples[i - 1]!.stealMs;
    if (stolenMs <= 0) continue;
    const atMs = samples[i]!.atMs;
    if (atMs - lastTickAtMs < gapMs && stallsMs.length > 0) stallsMs[stallsMs.length - 1]! += stolenMs;
    else stallsMs.push(stolenMs);
    lastTickAtMs = atMs;
  }
  return stallsMs;
}

/**
 * The most of its core the thread lost within any `windowMs`: run-queue wait and steal together.
 * Many short stalls close together hold a queue back as one long one does.
 */
export function worstLossMs(samples: readonly WaitSample[], windowMs: number): number {
  const lostMs = (s: WaitSample) => s.waitNs / 1e6 + s.stealMs;
  let worst = 0;
  let from = 0;
  for (let to = 0; to < samples.length; to++) {
    while (samples[to]!.atMs - samples[from]!.atMs > windowMs) from++;
    worst = Math.max(worst, lostMs(samples[to]!) - lostMs(samples[from]!));
  }
  return worst;
}
