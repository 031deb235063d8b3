// What one request costs the modelled server (docs/simulator.md, "A server with finite capacity"):
// the CPU it keeps busy while it runs and the response bytes a LIST holds until it is done.
//
// A flow's service time is its uncontended time. Its CPU time is the flow's `cpu` when given, else
// a small per-request cost plus a cost per listed object (decoding from the watch cache, converting
// and encoding each object dominates a large LIST in kube-apiserver). One request is one goroutine
// at a time, so it keeps at most one core busy: its demand is cpu ÷ service time, at most 1.

/** CPU time of a request that lists nothing (authentication, routing, one object's encoding). */
export const BASE_CPU_MS = 0.5;
/** CPU time per object a LIST or a watch's initial listing returns (decode, convert, encode). */
export const CPU_MS_PER_OBJECT = 0.05;

/** CPU time of one request: the flow's own, or from the objects it lists (a selector scans them all). */
export function cpuMsOf(explicitCpuMs: number | undefined, objects: number | undefined): number {
  if (explicitCpuMs !== undefined) return explicitCpuMs;
  return BASE_CPU_MS + CPU_MS_PER_OBJECT * (objects ?? 0);
}

/** Cores a request keeps busy while it runs uncontended (0..1). */
export function cpuDemandOf(cpuMs: number, serviceMs: number): number {
  if (serviceMs <= 0) return 0;
  return Math.min(1, cpuMs / serviceMs);
}

/** Response bytes a request holds while it runs: the objects it returns × their size. */
export function responseBytesOf(objects: number | undefined, objectBytes: number): number {
  return objects === undefined ? 0 : objects * objectBytes;
}

/**
 * With `mainThreadCpuVaries`: a request's CPU and slice in proportion to its drawn service time, so
 * that over the flow's service-time distribution they average the flow's `cpu` and `mainThreadCpu`
 * (a request twice as slow uncontended spends twice the CPU); the slice at most the service time.
 * Scaling the slice alone would let it outgrow the request's CPU and add CPU the flow never spent.
 */
export function variedCostOf(cpuMs: number, mainThreadCpuMs: number, serviceMs: number, meanServiceMs: number): { cpuMs: number; sliceMs: number } {
  if (meanServiceMs <= 0) return { cpuMs, sliceMs: mainThreadCpuMs };
  const scale = serviceMs / meanServiceMs;
  return { cpuMs: cpuMs * scale, sliceMs: Math.min(serviceMs, mainThreadCpuMs * scale) };
}

/**
 * A request with the main thread modelled (sim/main-thread.ts), in three parts: `sliceMs` of CPU
 * run to completion on the main thread; `poolMs` of CPU on a pool thread (work the pool runs: the
 * rest of its CPU, holding the thread only while it computes); then `restMs` more of its service
 * time, keeping `restDemand` cores busy (the process's other threads; none after pool work, whose
 * rest is the client reading the response).
 */
export interface MainThreadSplit {
  sliceMs: number;
  poolMs: number;
  restMs: number;
  restDemand: number;
}

/**
 * The slice is the flow's `mainThreadCpu` when given; else work the pool runs leaves the main thread
 * only the cost of a request that lists nothing, and other work is all main thread.
 */
export function mainThreadSplitOf(cpuMs: number, explicitSliceMs: number | undefined, onPool: boolean, serviceMs: number): MainThreadSplit {
  const sliceMs = explicitSliceMs ?? (onPool ? Math.min(BASE_CPU_MS, cpuMs) : cpuMs);
  const leftCpuMs = Math.max(0, cpuMs - sliceMs);
  if (onPool) return { sliceMs, poolMs: leftCpuMs, restMs: Math.max(0, serviceMs - sliceMs - leftCpuMs), restDemand: 0 };
  const restMs = Math.max(0, serviceMs - sliceMs);
  return { sliceMs, poolMs: 0, restMs, restDemand: cpuDemandOf(leftCpuMs, restMs) };
}
