// Books on the modelled server's capacity (sim/shared-cpu.ts): CPU demand and response bytes over
// time, per report bucket and over the run, and the moment the server would have run out of memory.

export class CapacityMetrics {
  /** Peak CPU demand ÷ cores: above 1, every running request ran that many times slower. */
  peakCpu = 0;
  peakMemoryBytes = 0;
  /** When the response bytes in flight first exceeded server.memory; undefined if never. */
  outOfMemoryAtMs: number | undefined;
  /** Time the demand exceeded the cores (requests slowed), and time memory was exceeded. */
  overloadedMs = 0;
  outOfMemoryMs = 0;
  private demand = 0;
  private bytes = 0;
  private lastMs = 0;
  private busyIntegral = 0;
  private bucketStartMs = 0;
  private bucketBusyIntegral = 0;
  private bucketCpuMax = 0;
  private bucketMemoryMax = 0;
  readonly series = {
    /** Mean share of the cores busy (0..1). */
    cpuBusyMean: [] as number[],
    /** Peak demand ÷ cores. */
    cpuDemandMax: [] as number[],
    memoryBytesMax: [] as number[],
  };

  /** `cpus` Infinity: only memory is modelled. */
  constructor(
    readonly cpus: number,
    readonly memoryLimitBytes: number | null,
  ) {}

  private touch(nowMs: number): void {
    const dt = nowMs - this.lastMs;
    if (dt > 0) {
      const busy = Number.isFinite(this.cpus) ? Math.min(this.demand, this.cpus) / this.cpus : 0;
      this.busyIntegral += busy * dt;
      this.bucketBusyIntegral += busy * dt;
      if (this.demand > this.cpus) this.overloadedMs += dt;
      if (this.memoryLimitBytes !== null && this.bytes > this.memoryLimitBytes) this.outOfMemoryMs += dt;
    }
    this.lastMs = nowMs;
  }

  observe(nowMs: number, demand: number, bytes: number): void {
    this.touch(nowMs);
    this.demand = demand;
    this.bytes = bytes;
    const cpu = Number.isFinite(this.cpus) ? demand / this.cpus : 0;
    if (cpu > this.bucketCpuMax) this.bucketCpuMax = cpu;
    if (cpu > this.peakCpu) this.peakCpu = cpu;
    if (bytes > this.bucketMemoryMax) this.bucketMemoryMax = bytes;
    if (bytes > this.peakMemoryBytes) this.peakMemoryBytes = bytes;
    if (this.outOfMemoryAtMs === undefined && this.memoryLimitBytes !== null && bytes > this.memoryLimitBytes) this.outOfMemoryAtMs = nowMs;
  }

  closeBucket(nowMs: number): void {
    this.touch(nowMs);
    const lengthMs = nowMs - this.bucketStartMs;
    this.series.cpuBusyMean.push(lengthMs > 0 ? this.bucketBusyIntegral / lengthMs : 0);
    this.series.cpuDemandMax.push(this.bucketCpuMax);
    this.series.memoryBytesMax.push(this.bucketMemoryMax);
    this.bucketStartMs = nowMs;
    this.bucketBusyIntegral = 0;
    this.bucketCpuMax = Number.isFinite(this.cpus) ? this.demand / this.cpus : 0;
    this.bucketMemoryMax = this.bytes;
  }

  /** Mean share of the cores busy over [0, endMs]. */
  meanBusy(endMs: number): number {
    this.touch(endMs);
    return endMs > 0 ? this.busyIntegral / endMs : 0;
  }
}
