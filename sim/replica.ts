// The kube-apiservers of a run (server.replicas, docs/simulator.md "Replicas"): each its own
// controller, execution plane and CPUs and its own books of its levels; how client connections are
// given a replica, as a TCP load balancer would; and the run's books of a level as their sums.

import type { FlowController, LevelDump } from '../engine/flowcontrol/controller.ts';
import type { Prng } from '../engine/random.ts';
import type { VirtualThreads } from '../workers/virtual-threads.ts';
import type { CapacityMetrics } from './capacity-metrics.ts';
import type { MainThread } from './main-thread.ts';
import type { LevelMetrics } from './metrics.ts';
import type { ReplicaAssignment } from './scenario.ts';
import { streamPrng } from './seed.ts';
import type { SharedCpu } from './shared-cpu.ts';

export interface ReplicaResult {
  name: string;
  /** The replica's own level books (the run's `levels` are the sums over replicas). */
  levels: LevelMetrics[];
  /** null when the scenario models neither CPU nor memory. */
  capacity: CapacityMetrics | null;
  /** Client connections pinned to it, by flow. */
  clients: Record<string, number>;
}

/**
 * One kube-apiserver: its own APF controller (so its own server concurrency limit and borrowing),
 * its own execution plane and CPUs. With one replica its levels are the run's.
 */
export class Replica {
  controller!: FlowController;
  executor!: VirtualThreads;
  cpu: SharedCpu | undefined;
  /** With server.mainThread: the event loop every request's main-thread slice passes through. */
  mainThread: MainThread | undefined;
  capacity: CapacityMetrics | null = null;
  readonly levels = new Map<string, LevelMetrics>();
  readonly clients: Record<string, number> = {};

  constructor(readonly name: string) {}
}

/**
 * Gives a flow's client connections their replicas at connection time: a seeded draw of the flow's
 * own stream (so adding a flow never moves another's clients), or in turn over every client.
 */
export class ReplicaAssigner {
  private next = 0;

  constructor(
    private readonly replicas: readonly Replica[],
    private readonly assignment: ReplicaAssignment,
    private readonly seed: string,
  ) {}

  picker(flowName: string): () => Replica {
    const replicas = this.replicas;
    if (replicas.length === 1) return () => replicas[0]!;
    let prng: Prng | undefined;
    return () => {
      let replica: Replica;
      if (this.assignment === 'round-robin') replica = replicas[this.next++ % replicas.length]!;
      else {
        prng ??= streamPrng(this.seed, `replica:${flowName}`);
        replica = replicas[prng.int(replicas.length)]!;
      }
      replica.clients[flowName] = (replica.clients[flowName] ?? 0) + 1;
      return replica;
    };
  }
}

/** A level as the sum of its replicas': limits and CurrentCL added up, the rest as `dump` has it. */
export function summedDump(dump: LevelDump, replicas: readonly Replica[]): LevelDump {
  const limits = { ...dump.limits, nominalCL: 0, lendableCL: 0, borrowingCL: 0, minCL: 0, maxCL: 0, initialCurrentCL: 0 };
  let currentCL = 0;
  for (const replica of replicas) {
    const own = replica.levels.get(dump.name);
    if (own?.limits === undefined) continue;
    limits.nominalCL += own.limits.nominalCL;
    limits.lendableCL += own.limits.lendableCL;
    limits.borrowingCL += own.limits.borrowingCL;
    limits.minCL += own.limits.minCL;
    limits.maxCL += own.limits.maxCL;
    limits.initialCurrentCL += own.limits.initialCurrentCL;
    currentCL += own.currentCL;
  }
  return { ...dump, limits, currentCL };
}
