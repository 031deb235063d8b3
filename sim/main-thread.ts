// The server's main thread (docs/simulator.md, "The main thread"): Node's event loop runs one piece
// of work at a time, each to completion, in the order it became ready. A request's main-thread
// slice waits for the slices ahead of it (a GET arriving during a LIST's 10 ms slice waits for the
// rest of it), then runs on the shared CPUs as one busy thread (demand 1), so a pool thread working
// beside it on the same core slows it, and it slows the pool thread, as the kernel shares a core.
//
// One implementation of a FIFO of threads exists (workers/virtual-threads.ts): this is that FIFO
// with one thread, whose work is timed by the shared CPUs.

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

export class MainThread {
  private readonly loop: VirtualThreads;

  constructor(cpu: SharedCpu) {
    this.loop = new VirtualThreads((_delayMs, done, work) => cpu.start(work as Slice, done), 1);
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
