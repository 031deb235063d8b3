// The server's main thread (docs/simulator.md, "The main thread"): Node's event loop runs one piece
// of work at a time, each to completion, in the order it became ready. A request's main-thread
// slice waits for the slices ahead of it (a GET arriving during a LIST's 10 ms slice waits for the
// rest of it), then runs on the shared CPUs as one busy thread (demand 1), so a pool thread working
// beside it on the same core slows it, and it slows the pool thread, as the kernel shares a core.
//
// One implementation of a FIFO of threads exists (workers/virtual-threads.ts): this is that FIFO
// with one thread, whose work is timed by the shared CPUs.
//
// A runtime pause (a GC, sim/server-pauses.ts) stops the thread where it is: it lands inside the
// running slice, which ends that much later, and every slice waiting behind it waits as long. A
// pause of an idle thread runs as a slice of its own, ahead of any slice that arrives during it.
// Either way the pause keeps a core busy (the collector runs on the main thread).

import { VirtualThreads, type VirtualWork } from '../workers/virtual-threads.ts';
import type { CpuWork, SharedCpu } from './shared-cpu.ts';

/** One run-to-completion slice: a thread's worth of CPU for `serviceMs`, then `fire`. */
class Slice implements VirtualWork, CpuWork {
  readonly cpuDemand = 1;
  readonly memoryBytes = 0;

  constructor(
    readonly serviceMs: number,
    readonly fire: () => void,
  ) {}
}

const NOTHING = () => {};

export class MainThread {
  private readonly loop: VirtualThreads;
  /** Pauses that fell inside the running slice, not yet run (ms). */
  private pausedMs = 0;

  /** `pausable`: `pause` may be called (without it a slice ends the moment its CPU is done, with no check). */
  constructor(
    private readonly cpu: SharedCpu,
    pausable = false,
  ) {
    this.loop = new VirtualThreads(
      pausable ? (_delayMs, done, work) => cpu.start(work as Slice, () => this.afterSlice(done)) : (_delayMs, done, work) => cpu.start(work as Slice, done),
      1,
    );
  }

  /** Holds the slice that just ran its CPU for the pauses that fell inside it, then ends it. */
  private afterSlice(done: () => void): void {
    const pausedMs = this.pausedMs;
    if (pausedMs <= 0) return done();
    this.pausedMs = 0;
    this.cpu.start(new Slice(pausedMs, NOTHING), () => this.afterSlice(done));
  }

  /** Stops the main thread for `ms`: inside the running slice, or as a slice now when idle. */
  pause(ms: number): void {
    if (this.loop.busy > 0) this.pausedMs += ms;
    else this.loop.execute(new Slice(ms, NOTHING));
  }

  /** Slices waiting for the main thread (the one running not counted). */
  get queued(): number {
    return this.loop.queued;
  }

  /** Runs `sliceMs` of CPU on the main thread after the slices ahead of it; then `then`. */
  run(sliceMs: number, then: () => void): void {
    this.loop.execute(new Slice(sliceMs, then));
  }
}
