// report.json: the run's results as plain data with documented, stable keys (docs/simulator.md,
// "report.json"). Built only from simulated quantities, with every number rounded to a fixed
// precision, so the same scenario and seed give byte-identical files wherever they run.

import type { RejectReason } from '../engine/flowcontrol/queue-set.ts';
import { BACKLOGGED_FRACTION_MIN, jainIndex, maxMinFairShares } from './fairness.ts';
import type { DurationHistogram } from './histogram.ts';
import { REJECT_REASONS, type FlowMetrics, type LevelMetrics, type RejectCounts } from './metrics.ts';
import type { SimulationResult } from './simulation.ts';
import type { Suggestion } from './remedy.ts';
import { capacityParts, type CapacityReport, type CapacitySeries, type ReplicaReport } from './capacity-report.ts';
import { pauseShare } from './server-pauses.ts';

export const REPORT_KIND = 'SimulationReport';
export const REPORT_VERSION = 1;

export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
  max: number | null;
  mean: number | null;
}

export interface FlowReport {
  source: 'scenario' | 'audit-log';
  flowSchema: string;
  priorityLevel: string;
  arrived: number;
  dispatched: number;
  completed: number;
  /** Mean seats a dispatched request of this flow occupied (the work estimate's width). */
  seatsPerRequest: number | null;
  rejected: RejectCounts;
  rejectedTotal: number;
  waitingAtEnd: number;
  executingAtEnd: number;
  deadlineExceeded: number;
  waitSeconds: Percentiles;
  latencySeconds: Percentiles;
  backloggedSeconds: number;
  meanSeatsWhileBacklogged: number | null;
}

export interface LevelReport {
  exempt: boolean;
  nominalCL: number;
  lendableCL: number;
  borrowingCL: number;
  minCL: number;
  maxCL: number;
  maxSeats: number;
  queues: number;
  dispatched: number;
  rejected: RejectCounts;
  rejectedTotal: number;
  noAccommodation: number;
  currentCL: { min: number; max: number; mean: number; final: number };
  borrowing: { meanSeats: number; maxSeats: number; minSeats: number };
  seatsInUse: { mean: number; max: number };
  waiting: { mean: number; max: number };
  longestQueue: number;
  flows: string[];
}

export interface FairnessReport {
  /** Jain's index over the mean seats each backlogged flow held while backlogged. */
  jain: number | null;
  backloggedFlows: string[];
  meanSeatsWhileBacklogged: Record<string, number>;
  /**
   * Jain's index over every flow's seats received ÷ its max-min fair share (demand = seats ×
   * service time of its requests; capacity = the level's mean CurrentCL): 1 when each flow got
   * its fair share, whether or not it was backlogged.
   */
  jainVsMaxMinFair: number | null;
  maxMinFair: Record<string, { demandSeats: number; fairShareSeats: number; receivedSeats: number }>;
}

export interface SimulationReport {
  kind: typeof REPORT_KIND;
  version: typeof REPORT_VERSION;
  scenario: {
    name: string;
    description: string;
    seed: string;
    durationSeconds: number;
    bootstrap: string;
    server: {
      maxRequestsInflight: number;
      maxMutatingRequestsInflight: number;
      serverConcurrencyLimit: number;
      requestTimeoutSeconds: number;
      consistentListFromCache: boolean;
      /** null: the execution plane is not modelled. */
      executorThreads: number | null;
      /** Only when given: the capacity model's cores, memory bound, and the replicas. */
      cpus?: number;
      memoryBytes?: number;
      /** Only when on: the main thread modelled (sim/main-thread.ts). */
      mainThread?: true;
      /** Only with `server.pauses`: the share of the main thread's time they take on average (sim/server-pauses.ts). */
      mainThreadPauseShare?: number;
      replicas?: number;
      replicaAssignment?: string;
    };
    warnings: string[];
  };
  totals: {
    arrived: number;
    dispatched: number;
    completed: number;
    rejected: RejectCounts;
    rejectedTotal: number;
    waitingAtEnd: number;
    executingAtEnd: number;
    simulatedEvents: number;
  };
  flows: Record<string, FlowReport>;
  levels: Record<string, LevelReport>;
  fairness: Record<string, FairnessReport>;
  /** The modelled server's use of its CPUs and memory (only with server.cpus or server.memory). */
  capacity?: CapacityReport;
  /** Each kube-apiserver's own books (only with server.replicas > 1); `levels` are their sums. */
  replicas?: ReplicaReport[];
  series: {
    intervalSeconds: number;
    timesSeconds: number[];
    levels: Record<string, LevelMetrics['series']>;
    flows: Record<string, { arrived: number[]; dispatched: number[]; rejected: number[]; waitMaxSeconds: number[] }>;
    /** Per replica, per bucket (only with the capacity model). */
    capacity?: Record<string, CapacitySeries>;
  };
  distributions: { waitSeconds: Record<string, [number, number][]>; latencySeconds: Record<string, [number, number][]> };
  audit?: NonNullable<SimulationResult['audit']>;
  /** Why flows suffered, in words (sim/explain/explain.ts); set when the run is reported from its scenario. */
  explanations?: { flow: string; level: string; text: string }[];
  /** Remedies simulated with the same seed, kept when they helped (sim/explain/suggest.ts). */
  suggestions?: Suggestion[];
}

/** Rounds to `digits` decimals; -0 becomes 0 so the text never shows "-0". */
export function round(value: number, digits = 6): number {
  const f = 10 ** digits;
  const r = Math.round(value * f) / f;
  return r === 0 ? 0 : r;
}

const seconds = (ms: number | undefined): number | null => (ms === undefined ? null : round(ms / 1000));

function percentiles(h: DurationHistogram): Percentiles {
  return {
    p50: seconds(h.quantileMs(0.5)),
    p90: seconds(h.quantileMs(0.9)),
    p99: seconds(h.quantileMs(0.99)),
    max: h.count === 0 ? null : seconds(h.maxMs),
    mean: seconds(h.meanMs),
  };
}

const total = (counts: RejectCounts): number => REJECT_REASONS.reduce((sum, r: RejectReason) => sum + counts[r], 0);
const roundAll = (values: number[], digits: number): number[] => values.map((v) => round(v, digits));

export function buildReport(result: SimulationResult): SimulationReport {
  const flows = Object.fromEntries(result.flows.map((f) => [f.name, flowReport(f)]));
  const levels: Record<string, LevelReport> = {};
  const fairness: Record<string, FairnessReport> = {};
  for (const l of result.levels) {
    const means = l.means(result.durationMs);
    const levelFlows = result.flows.filter((f) => f.levels.has(l.name));
    levels[l.name] = levelReport(l, means, levelFlows);
    if (levelFlows.length > 0) fairness[l.name] = fairnessOf(levelFlows, result.durationMs, means.currentCL);
  }
  const report: SimulationReport = {
    kind: REPORT_KIND,
    version: REPORT_VERSION,
    scenario: scenarioSection(result),
    totals: totalsOf(Object.values(flows), result.eventsRun),
    flows,
    levels,
    fairness,
    series: seriesOf(result),
    distributions: {
      waitSeconds: Object.fromEntries(result.flows.map((f) => [f.name, cdfSeconds(f.wait)])),
      latencySeconds: Object.fromEntries(result.flows.map((f) => [f.name, cdfSeconds(f.latency)])),
    },
  };
  if (result.audit !== undefined) report.audit = result.audit;
  addCapacity(report, result);
  return report;
}

type FlowStats = SimulationResult['flows'][number];
type LevelStats = SimulationResult['levels'][number];

function flowReport(f: FlowStats): FlowReport {
  return {
    source: f.source,
    flowSchema: f.flowSchema,
    priorityLevel: f.levels.size > 1 ? [...f.levels].sort().join(',') : f.level,
    arrived: f.arrived,
    dispatched: f.dispatched,
    completed: f.completed,
    seatsPerRequest: f.dispatched === 0 ? null : round(f.seatsDispatched / f.dispatched, 3),
    rejected: { ...f.rejected },
    rejectedTotal: total(f.rejected),
    waitingAtEnd: f.waiting,
    executingAtEnd: f.executing,
    deadlineExceeded: f.deadlineExceeded,
    waitSeconds: percentiles(f.wait),
    latencySeconds: percentiles(f.latency),
    backloggedSeconds: round(f.backloggedMs / 1000),
    meanSeatsWhileBacklogged: f.backloggedMs > 0 ? round(f.seatMsWhileBacklogged / f.backloggedMs, 4) : null,
  };
}

function levelReport(l: LevelStats, means: ReturnType<LevelStats['means']>, levelFlows: readonly FlowStats[]): LevelReport {
  const limits = l.limits;
  const nominalCL = limits?.nominalCL ?? 0;
  return {
    exempt: l.exempt,
    nominalCL,
    lendableCL: limits?.lendableCL ?? 0,
    borrowingCL: limits?.borrowingCL ?? 0,
    minCL: limits?.minCL ?? 0,
    maxCL: limits?.maxCL ?? 0,
    maxSeats: l.maxSeats,
    queues: l.queues,
    dispatched: l.dispatched,
    rejected: { ...l.rejected },
    rejectedTotal: total(l.rejected),
    noAccommodation: l.noAccommodation,
    currentCL: { min: finite(l.currentCLMin), max: finite(l.currentCLMax), mean: round(means.currentCL, 3), final: l.currentCL },
    borrowing: {
      meanSeats: round(means.currentCL - nominalCL, 3),
      maxSeats: finite(l.currentCLMax) - nominalCL,
      minSeats: finite(l.currentCLMin) - nominalCL,
    },
    seatsInUse: { mean: round(means.seatsInUse, 3), max: l.seatsInUseMax },
    waiting: { mean: round(means.waiting, 3), max: l.waitingMax },
    longestQueue: l.longestQueue,
    flows: levelFlows.map((f) => f.name),
  };
}

function scenarioSection(result: SimulationResult): SimulationReport['scenario'] {
  const { scenario } = result;
  return {
    name: scenario.name,
    description: scenario.description,
    seed: result.seed,
    durationSeconds: round(result.durationMs / 1000),
    bootstrap: scenario.bootstrap,
    server: {
      maxRequestsInflight: scenario.server.maxRequestsInflight,
      maxMutatingRequestsInflight: scenario.server.maxMutatingRequestsInflight,
      serverConcurrencyLimit: result.serverConcurrencyLimit,
      requestTimeoutSeconds: round(scenario.server.requestTimeoutMs / 1000),
      consistentListFromCache: scenario.server.consistentListFromCache,
      executorThreads: scenario.server.executorThreads,
    },
    warnings: result.warnings,
  };
}

function totalsOf(flows: readonly FlowReport[], simulatedEvents: number): SimulationReport['totals'] {
  const sum = (pick: (f: FlowReport) => number) => flows.reduce((s, f) => s + pick(f), 0);
  const rejected = {
    'queue-full': sum((f) => f.rejected['queue-full']),
    'time-out': sum((f) => f.rejected['time-out']),
    'concurrency-limit': sum((f) => f.rejected['concurrency-limit']),
  };
  return {
    arrived: sum((f) => f.arrived),
    dispatched: sum((f) => f.dispatched),
    completed: sum((f) => f.completed),
    rejected,
    rejectedTotal: total(rejected),
    waitingAtEnd: sum((f) => f.waitingAtEnd),
    executingAtEnd: sum((f) => f.executingAtEnd),
    simulatedEvents,
  };
}

function seriesOf(result: SimulationResult): SimulationReport['series'] {
  const levelSeries = (l: LevelStats) => ({
    currentCL: [...l.series.currentCL],
    seatsInUseMean: roundAll(l.series.seatsInUseMean, 3),
    seatsInUseMax: [...l.series.seatsInUseMax],
    waitingMean: roundAll(l.series.waitingMean, 3),
    waitingMax: [...l.series.waitingMax],
    longestQueue: [...l.series.longestQueue],
    dispatched: [...l.series.dispatched],
    rejected: [...l.series.rejected],
  });
  const flowSeries = (f: FlowStats) => ({
    arrived: [...f.series.arrived],
    dispatched: [...f.series.dispatched],
    rejected: [...f.series.rejected],
    waitMaxSeconds: f.series.waitMaxMs.map((ms) => round(ms / 1000)),
  });
  return {
    intervalSeconds: round(result.intervalMs / 1000),
    timesSeconds: result.bucketEndsMs.map((ms) => round(ms / 1000)),
    levels: Object.fromEntries(result.levels.map((l) => [l.name, levelSeries(l)])),
    flows: Object.fromEntries(result.flows.map((f) => [f.name, flowSeries(f)])),
  };
}

const cdfSeconds = (h: DurationHistogram): [number, number][] => h.cdf(100).map(([ms, p]) => [round(ms / 1000), round(p, 4)]);

/** The capacity model's and the replicas' keys, in a fixed place among the others, when modelled. */
function addCapacity(report: SimulationReport, result: SimulationResult): void {
  const server = result.scenario.server;
  if (server.cpus !== null) report.scenario.server.cpus = server.cpus;
  if (server.memoryBytes !== null) report.scenario.server.memoryBytes = server.memoryBytes;
  if (server.mainThread) report.scenario.server.mainThread = true;
  if (server.pauses.length > 0) report.scenario.server.mainThreadPauseShare = round(pauseShare(server.pauses), 4);
  if (server.replicas > 1) {
    report.scenario.server.replicas = server.replicas;
    report.scenario.server.replicaAssignment = server.replicaAssignment;
  }
  const parts = capacityParts(result, round);
  if (parts.capacity !== undefined) report.capacity = parts.capacity;
  if (parts.replicas !== undefined) report.replicas = parts.replicas;
  if (parts.series !== undefined) report.series.capacity = parts.series;
}

/**
 * Jain's index over the mean seats each backlogged flow held while backlogged. Flows backlogged
 * for less than a tenth of the run are left out: a brief backlog says little about sharing.
 */
function fairnessOf(flows: readonly FlowMetrics[], durationMs: number, capacitySeats: number): FairnessReport {
  const backlogged = flows.filter((f) => f.backloggedMs >= BACKLOGGED_FRACTION_MIN * durationMs && f.levels.size === 1);
  const shares = backlogged.map((f) => f.seatMsWhileBacklogged / f.backloggedMs);
  const jain = jainIndex(shares);

  const competing = flows.filter((f) => f.levels.size === 1 && f.offeredSeatMs > 0);
  const d = durationMs > 0 ? durationMs : 1;
  const demands = competing.map((f) => f.offeredSeatMs / d);
  const fair = maxMinFairShares(demands, capacitySeats);
  const normalized = competing.flatMap((f, i) => (fair[i]! > 0 ? [f.seatMs / d / fair[i]!] : []));
  const normalizedJain = jainIndex(normalized);
  return {
    jain: jain === undefined ? null : round(jain, 4),
    backloggedFlows: backlogged.map((f) => f.name),
    meanSeatsWhileBacklogged: Object.fromEntries(backlogged.map((f, i) => [f.name, round(shares[i]!, 4)])),
    jainVsMaxMinFair: normalizedJain === undefined ? null : round(normalizedJain, 4),
    maxMinFair: Object.fromEntries(
      competing.map((f, i) => [f.name, { demandSeats: round(demands[i]!, 3), fairShareSeats: round(fair[i]!, 3), receivedSeats: round(f.seatMs / d, 3) }]),
    ),
  };
}

function finite(value: number): number {
  return Number.isFinite(value) ? value : 0;
}

/** The file's text: two-space JSON and a final newline. */
export function reportJson(report: SimulationReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
