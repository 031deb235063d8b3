// The modelled server's CPUs, shared by the requests running on them (processor sharing): while
// the CPU demand of the running requests D = Σ dᵢ (each request's cores, sim/request-cost.ts) is at
// most the cores C, every request runs at its uncontended pace; above, every one progresses at
// C/D of it, so admitting more heavy work slows every request on the server, as on a real one.
//
// Because all running requests progress at the same rate, one number tracks them all: `progress`,
// the uncontended milliseconds any running request has advanced since the model started. A request
// that starts at progress p with service time s finishes when progress reaches p + s, so the next
// completion is the heap's smallest finish, and only its one clock event is re-armed when the rate
// changes. Deterministic: virtual time only, ties finish in the order the requests started.

import { BinaryHeap } from '../engine/binary-heap.ts';
import type { Cancel } from '../engine/clock.ts';

/** A request as the CPUs see it: its uncontended time, cores and response bytes. */
export interface CpuWork {
  readonly serviceMs: number;
  readonly cpuDemand: number;
  readonly memoryBytes: number;
  fire(): void;
}

interface Running {
  finish: number;
  seq: number;
  work: CpuWork;
  done: (() => void) | undefined;
}

/** Completions this close to due (in uncontended ms) are due: float sums of the rate drift. */
const EPSILON_MS = 1e-9;

export interface CpuClock {
  now(): number;
  after(delayMs: number, callback: () => void): Cancel;
}

export class SharedCpu {
  /** CPU demand of the running requests (cores). */
  demand = 0;
  /** Response bytes the running requests hold. */
  memoryBytes = 0;
  private progress = 0;
  private lastMs = 0;
  private rate = 1;
  private seq = 0;
  private readonly heap = new BinaryHeap<Running>(before);
  private cancelNext: Cancel | undefined;
  private nextDueMs = Number.NaN;
  private completing = false;

  /** `cpus` may be Infinity (memory modelled alone); `observe` hears every change of demand or bytes. */
  constructor(
    private readonly clock: CpuClock,
    private readonly cpus: number,
    private readonly observe: (demand: number, memoryBytes: number) => void,
  ) {}

  /** Runs `work`; at its end `done` is called, or `work.fire()` without one. */
  start(work: CpuWork, done?: () => void): void {
    this.advance();
    this.heap.push({ finish: this.progress + work.serviceMs, seq: this.seq++, work, done });
    this.demand += work.cpuDemand;
    this.memoryBytes += work.memoryBytes;
    this.rate = this.rateOf();
    this.observe(this.demand, this.memoryBytes);
    if (!this.completing) this.arm();
  }

  private rateOf(): number {
    return this.demand <= this.cpus ? 1 : this.cpus / this.demand;
  }

  private advance(): void {
    const now = this.clock.now();
    this.progress += (now - this.lastMs) * this.rate;
    this.lastMs = now;
  }

  /** Keeps one clock event, at the next completion at the current rate. */
  private arm(): void {
    const top = this.heap.peek();
    if (top === undefined) {
      this.cancelNext?.();
      this.cancelNext = undefined;
      this.nextDueMs = Number.NaN;
      return;
    }
    const dueMs = this.lastMs + Math.max(0, top.finish - this.progress) / this.rate;
    if (dueMs === this.nextDueMs) return;
    this.cancelNext?.();
    this.nextDueMs = dueMs;
    this.cancelNext = this.clock.after(dueMs - this.clock.now(), this.complete);
  }

  private readonly complete = (): void => {
    this.cancelNext = undefined;
    this.nextDueMs = Number.NaN;
    this.advance();
    this.completing = true;
    // Each finished request is taken off the books before its callback runs, so work the callback
    // admits (a released seat dispatching the next request) starts at the new rate.
    for (let top = this.heap.peek(); top !== undefined && top.finish <= this.progress + EPSILON_MS; top = this.heap.peek()) {
      this.heap.pop();
      this.demand -= top.work.cpuDemand;
      this.memoryBytes -= top.work.memoryBytes;
      if (this.heap.size === 0) {
        this.demand = 0;
        this.memoryBytes = 0;
      }
      this.rate = this.rateOf();
      this.observe(this.demand, this.memoryBytes);
      if (top.done === undefined) top.work.fire();
      else top.done();
    }
    this.completing = false;
    this.arm();
  };
}

function before(a: Running, b: Running): boolean {
  return a.finish < b.finish || (a.finish === b.finish && a.seq < b.seq);
}
