// The run loop: the real FlowController on a SimClock (its RxJS scheduler and xstate clock are
// built on that clock), fed by the scenario's flows and an optional audit-log replay, with
// admitted work executed by the virtual executor. One seed gives one history: every random draw
// comes from a per-flow PRNG derived from the seed, and every event is ordered by (time, seq).
//
// Nothing here re-implements engine behaviour: classification, work estimation, queuing,
// dispatch, time-outs and borrowing all happen inside the controller. The simulator only keeps
// books on what the controller decided (metrics.ts).
//
// Longer than most files on purpose: the run loop, the two workload drivers and the bookkeeping
// hooks share the per-request state (InFlight, the request being admitted), and splitting them
// would spread that protocol over several files.

import { ObjectCountTracker, startObjectCountPolling } from '../engine/flowcontrol/object-count-tracker.ts';
import { AdmissionRecord, FlowController, type AdmitRequest, type ControllerDump, type LevelDump } from '../engine/flowcontrol/controller.ts';
import type { RequestDigest } from '../engine/flowcontrol/request-digest.ts';
import { maxSeatsOf, type ObjectCountResult } from '../engine/flowcontrol/work-estimate.ts';
import { parseDurationMs } from './duration.ts';
import type { AuditLog } from './audit-log.ts';
import { auditFlowName, DEFAULT_AUDIT_GROUPING, type AuditGrouping } from './audit-grouping.ts';
import { buildClassifier, type Classification } from '../engine/flowcontrol/classifier.ts';
import { arrivalProcess, serviceMeanMs, serviceSampler } from './distributions.ts';
import { FlowMetrics, LevelMetrics } from './metrics.ts';
import { requestDigest } from './request-shape.ts';
import type { LoadedScenario } from './scenario-load.ts';
import { DEFAULT_OBJECT_BYTES, MAX_WAIT_LIMIT_MS, type FlowSpec, type Scenario } from './scenario.ts';
import { streamPrng } from './seed.ts';
import { SimClock } from '../engine/sim-clock.ts';
import { runsOnPool, threadsFor } from './execution-model.ts';
import { VirtualThreads, type VirtualWork } from '../workers/virtual-threads.ts';
import { CapacityMetrics } from './capacity-metrics.ts';
import { cpuDemandOf, cpuMsOf, mainThreadSplitOf, responseBytesOf, variedCostOf } from './request-cost.ts';
import { MainThread } from './main-thread.ts';
import { schedulePauses } from './server-pauses.ts';
import { SharedCpu, type CpuWork } from './shared-cpu.ts';
import { Replica, ReplicaAssigner, summedDump, type ReplicaResult } from './replica.ts';
import { HandCollisionBooks, type Ahead, type HandCollisionRecords, type QueueWaiters } from './hand-collisions.ts';

export type { ReplicaResult } from './replica.ts';

export interface SimulationInput {
  loaded: LoadedScenario;
  seed: string;
  auditLog?: AuditLog | undefined;
  /** How replayed requests become report flows (default user+flowschema). */
  auditGrouping?: AuditGrouping | undefined;
  /** Called every simulated chunk (about 1% of the run) with the simulated time reached. */
  onProgress?: ((simulatedMs: number, durationMs: number) => void) | undefined;
}

export interface SimulationResult {
  scenario: Scenario;
  seed: string;
  warnings: string[];
  durationMs: number;
  intervalMs: number;
  /** End of each time bucket of the series, in ms. */
  bucketEndsMs: number[];
  serverConcurrencyLimit: number;
  flows: FlowMetrics[];
  levels: LevelMetrics[];
  finalDump: ControllerDump;
  eventsRun: number;
  /** One per kube-apiserver (server.replicas); its own levels only when there are several. */
  replicas: ReplicaResult[];
  /** Requests that waited behind other flows' in their queue (not in report.json; sim/explain reads them). */
  handCollisions: HandCollisionRecords;
  audit?: { file: string; requests: number; replayed: number; beyondDuration: number; skipped: AuditLog['skipped']; originallyRejected: number } | undefined;
}

/** What a flow's requests cost the server (sim/request-cost.ts). */
interface FlowCost {
  cpuMs: number | undefined;
  mainThreadCpuMs: number | undefined;
  /** With `mainThreadCpuVaries`: the flow's mean service time, which a request's CPU and slice are scaled by. */
  meanServiceMs: number | undefined;
  objectBytes: number;
}

const AUDIT_COST: FlowCost = { cpuMs: undefined, mainThreadCpuMs: undefined, meanServiceMs: undefined, objectBytes: DEFAULT_OBJECT_BYTES };

const NICE_INTERVALS_MS = [100, 200, 500, 1000, 2000, 5000, 10_000, 15_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];
const MAX_BUCKETS = 300;

/** The report's bucket width: the smallest "nice" width giving at most 300 buckets. */
export function chooseIntervalMs(durationMs: number): number {
  return NICE_INTERVALS_MS.find((ms) => durationMs / ms <= MAX_BUCKETS) ?? Math.ceil(durationMs / MAX_BUCKETS);
}

/**
 * What every request of one source (a scenario flow, or one replayed request) shares: read by the
 * requests, not copied into each, so a simulated request initialises a few fields only.
 */
interface RequestSource {
  readonly flow: FlowMetrics;
  readonly cost: FlowCost;
  readonly digest: RequestDigest;
  readonly query: Record<string, string>;
  /** Objects a LIST or WATCH lists (the estimator's count when undefined), and watchers. */
  readonly objects: number | undefined;
  /** Objects a LIST returns, when fewer than it lists (a label selector's matches). */
  readonly returns: number | undefined;
  readonly watchers: number;
  readonly waitLimitMs: number | undefined;
  readonly timeoutMs: number;
  /** The run's books of the level its requests were last classified into (a flow seldom moves), and by which classification. */
  levelBooks: LevelMetrics | undefined;
  levelBooksFor: Classification | undefined;
}

/** A request waiting in a queue: the queue's length when it joined (counting itself), and what it found there. */
interface Queued {
  readonly queueLength: number;
  readonly waiters: QueueWaiters;
  readonly ahead: Ahead | undefined;
}

/**
 * One simulated request: the controller's admission record (and so the queue set's entry) and the
 * work the executor runs, one object in all. No closures of its own: the controller hands the
 * decision back through `onDecided`, the clock runs it as a task.
 */
class InFlight extends AdmissionRecord implements AdmitRequest, VirtualWork, CpuWork {
  /** Set while it waits in a queue (most requests never do, so they carry one field, not four). */
  queued: Queued | undefined = undefined;
  seats = 0;
  releaseDelayMs = 0;
  cpuDemand = 0;
  memoryBytes = 0;
  level: LevelMetrics | undefined = undefined;
  /** The replica's own books of the level (several replicas only). */
  replicaLevel: LevelMetrics | undefined = undefined;
  /** Objects the work estimator counted (LIST and WATCH only). */
  objects: number | undefined = undefined;
  /** The next of Simulation's spare requests, while this one is spare. */
  nextSpare: InFlight | undefined = undefined;

  /**
   * Numbers from the start, set by the constructor: as parameter properties they would first be
   * defined undefined, and V8 would then keep every value in a box of its own (one more object and
   * a write barrier per request).
   */
  arrivedMs = 0.5;
  serviceMs = 0.5;

  constructor(
    private readonly run: Simulation,
    public replica: Replica,
    public source: RequestSource,
    arrivedMs: number,
    serviceMs: number,
  ) {
    super();
    this.arrivedMs = arrivedMs;
    this.serviceMs = serviceMs;
  }

  /** The same object as a new request (see Simulation.spare). */
  renew(replica: Replica, source: RequestSource, arrivedMs: number, serviceMs: number): this {
    this.reuse();
    this.replica = replica;
    this.source = source;
    this.arrivedMs = arrivedMs;
    this.serviceMs = serviceMs;
    this.queued = undefined;
    this.seats = 0;
    this.releaseDelayMs = 0;
    this.cpuDemand = 0;
    this.memoryBytes = 0;
    this.level = undefined;
    this.replicaLevel = undefined;
    this.objects = undefined;
    this.nextSpare = undefined;
    return this;
  }

  get admitted(): this {
    return this;
  }

  get digest(): RequestDigest {
    return this.source.digest;
  }

  get query(): Record<string, string> {
    return this.source.query;
  }

  get givenArrivalMs(): number {
    return this.arrivedMs;
  }

  get givenWaitLimitMs(): number | undefined {
    return this.source.waitLimitMs;
  }

  /** Objects the response carries: the flow's `returns`, else all it lists (the server encodes, and routes by, these). */
  get returned(): number | undefined {
    return this.source.returns ?? this.objects;
  }

  onDecided(): void {
    this.run.outcome(this);
  }

  /** The service time has passed (called by the executor). */
  fire(): void {
    this.run.finish(this);
  }
}

export function runSimulation(input: SimulationInput): SimulationResult {
  return new Simulation(input).run();
}

class Simulation {
  private readonly clock = new SimClock(0);
  private readonly scenario: Scenario;
  private readonly replicas: Replica[] = [];
  /** Several replicas: each keeps its own level books besides the run's sums. */
  private readonly multi: boolean;
  private readonly assigner: ReplicaAssigner;
  private readonly flows: FlowMetrics[] = [];
  private readonly levels = new Map<string, LevelMetrics>();
  /** Stored-object counts as kube-apiserver's tracker holds them, polled from the scenario's objectCounts. */
  private readonly objectCounts: ObjectCountTracker;
  /** What the estimator should report for the request being admitted right now. */
  private readonly estimating = { objects: undefined as number | undefined, watchers: 0 };
  private admitting: InFlight | undefined;
  /**
   * Requests done with, renewed for the next arrivals: a request then costs no allocation, no
   * construction through three classes and, being old, no write barrier's slow path when the
   * clock and the queue set store it (about 5% of a run). Only requests nothing else holds come
   * back here (see recycle). A list threaded through the requests (InFlight.nextSpare).
   */
  private spare: InFlight | undefined = undefined;
  /** Limits reported while the controller digests its empty start-up configuration are not ours. */
  private configured = false;
  private bucketsClosed = 0;
  private readonly hands = new HandCollisionBooks();
  private readonly intervalMs: number;
  private readonly bucketEndsMs: number[] = [];

  constructor(private readonly input: SimulationInput) {
    this.scenario = input.loaded.scenario;
    const server = this.scenario.server;
    this.objectCounts = new ObjectCountTracker(this.clock);
    this.intervalMs = this.scenario.reportIntervalMs ?? chooseIntervalMs(this.scenario.durationMs);
    this.multi = server.replicas > 1;
    for (let i = 0; i < server.replicas; i++) this.replicas.push(this.buildReplica(i));
    this.assigner = new ReplicaAssigner(this.replicas, server.replicaAssignment, input.seed);
  }

  private buildReplica(index: number): Replica {
    const server = this.scenario.server;
    const replica = new Replica(`replica-${index}`);
    if (server.cpus !== null || server.memoryBytes !== null) {
      const metrics = new CapacityMetrics(server.cpus ?? Number.POSITIVE_INFINITY, server.memoryBytes);
      replica.capacity = metrics;
      replica.cpu = new SharedCpu(this.clock, metrics.cpus, (demand, bytes) => metrics.observe(this.clock.now(), demand, bytes));
      if (server.mainThread) replica.mainThread = this.mainThreadOf(replica);
    }
    const cpu = replica.cpu;
    replica.executor = new VirtualThreads(
      cpu === undefined ? (delayMs, callback) => this.clock.schedule(delayMs, callback) : (_delayMs, callback, work) => cpu.start(work as InFlight, callback),
      threadsFor(server.executorThreads),
    );
    replica.controller = new FlowController({
      clock: this.clock,
      serverConcurrencyLimit: server.maxRequestsInflight + server.maxMutatingRequestsInflight,
      defaultWaitLimitMs: Math.min(server.requestTimeoutMs / 4, MAX_WAIT_LIMIT_MS),
      estimator: {
        objectCount: (groupResource) => this.objectCount(groupResource),
        watchCount: () => this.estimating.watchers,
        consistentListFromCache: server.consistentListFromCache,
        config: server.workEstimator,
      },
      observer: {
        queued: (descriptor, queueLengthAfter, _nowMs, queueId, idleQueues) => {
          // The queue set only enqueues inside startRequest, i.e. while we are admitting.
          const request = this.admitting;
          if (request === undefined || request !== descriptor) throw new Error('simulator: queued() outside admit()');
          // Without a queue id the queue set dispatches it in the same instant (its fast path):
          // waiting for no time changes no integral, and outcome() touches the same books.
          if (queueId === undefined) return;
          const nowMs = this.clock.now();
          const flow = request.source.flow;
          flow.touch(nowMs);
          flow.waiting++;
          const level = this.levelOf(request.source, request.classification);
          level.addWaiting(nowMs, 1);
          const replicaLevel = this.multi ? this.replicaLevel(replica, descriptor.priorityLevel) : undefined;
          replicaLevel?.addWaiting(nowMs, 1);
          const waiters = this.hands.queue(replicaLevel ?? level, queueId);
          request.queued = { queueLength: queueLengthAfter, waiters, ahead: this.hands.joined(waiters, flow.name, idleQueues ?? 0) };
        },
        noAccommodation: (descriptor) => {
          this.level(descriptor.priorityLevel).noAccommodation++;
          if (this.multi) this.replicaLevel(replica, descriptor.priorityLevel).noAccommodation++;
        },
        limitsChanged: (levels) => this.limitsChanged(replica, levels),
      },
    });
    return replica;
  }

  /** The replica's main thread, paused as `server.pauses` says, each kind of pause from its own stream. */
  private mainThreadOf(replica: Replica): MainThread {
    const { pauses } = this.scenario.server;
    const mainThread = new MainThread(replica.cpu!, pauses.length > 0);
    const prngOf = (index: number) => streamPrng(this.input.seed, `pauses:${index}:${replica.name}`);
    schedulePauses(this.clock, pauses, prngOf, this.scenario.durationMs, (ms) => mainThread.pause(ms));
    return mainThread;
  }

  run(): SimulationResult {
    const { scenario, input } = this;
    this.configured = true;
    const counts = new Map(Object.entries(scenario.objectCounts));
    const stopCounting = startObjectCountPolling({
      clock: this.clock,
      tracker: this.objectCounts,
      resources: [...counts.keys()],
      count: (key) => counts.get(key) ?? -1,
    });
    for (const replica of this.replicas) {
      replica.controller.configure(input.loaded.config);
      replica.controller.start();
    }
    for (const spec of scenario.flows) this.startFlow(spec);
    const audit = input.auditLog === undefined ? undefined : this.startReplay(input.auditLog);

    const durationMs = scenario.durationMs;
    const buckets = Math.ceil(durationMs / this.intervalMs);
    for (let k = 1; k <= buckets; k++) this.bucketEndsMs.push(Math.min(durationMs, k * this.intervalMs));
    this.scheduleBucketClose(0);

    const chunkMs = Math.max(this.intervalMs, durationMs / 100);
    for (let t = 0; t < durationMs; ) {
      t = Math.min(durationMs, t + chunkMs);
      this.clock.runUntil(t);
      input.onProgress?.(t, durationMs);
    }
    // The last bucket closes after everything due at the end has run.
    this.closeBucket();
    // The first replica's state stands for the configuration's (every replica digests the same one).
    const finalDump = this.replicas[0]!.controller.dump();
    for (const replica of this.replicas) replica.controller.stop();
    stopCounting();
    for (const flow of this.flows) flow.touch(durationMs);

    return {
      scenario,
      seed: input.seed,
      warnings: input.loaded.warnings,
      durationMs,
      intervalMs: this.intervalMs,
      bucketEndsMs: this.bucketEndsMs,
      serverConcurrencyLimit: scenario.server.maxRequestsInflight + scenario.server.maxMutatingRequestsInflight,
      flows: this.flows,
      levels: [...this.levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
      finalDump,
      eventsRun: this.clock.eventCount,
      replicas: this.replicas.map((r) => ({
        name: r.name,
        levels: [...r.levels.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
        capacity: r.capacity,
        clients: r.clients,
      })),
      audit: audit?.(),
      handCollisions: this.hands.records,
    };
  }

  // --- the engine's decisions ------------------------------------------------------------------

  /** The controller's decision on a request (the request is its outcome). */
  outcome(request: InFlight): void {
    const nowMs = this.clock.now();
    const source = request.source;
    const flow = source.flow;
    const level = this.levelOf(source, request.classification);
    if (flow.level !== level.name) {
      flow.level = level.name;
      flow.flowSchema = request.flowSchema;
      flow.levels.add(level.name);
    }
    flow.touch(nowMs);
    const replicaLevel = this.multi ? this.replicaLevel(request.replica, request.priorityLevel) : undefined;
    const queued = request.queued;
    if (queued !== undefined) {
      flow.waiting--;
      level.addWaiting(nowMs, -1);
      replicaLevel?.addWaiting(nowMs, -1);
      level.noteQueueLength(nowMs - request.arrivedMs, queued.queueLength);
      replicaLevel?.noteQueueLength(nowMs - request.arrivedMs, queued.queueLength);
      this.hands.left(queued.waiters, flow.name, flow.series.arrived.length, queued.ahead);
    }
    const estimate = request.workEstimate;
    flow.offeredSeatMs += maxSeatsOf(estimate) * request.serviceMs;
    if (request.decision.kind === 'reject') {
      flow.noteRejected(request.decision.reason);
      level.noteRejected(request.decision.reason);
      replicaLevel?.noteRejected(request.decision.reason);
      // The queue set is done with it, and so are we (an arrival renews it, in a later event).
      this.toSpare(request);
      return;
    }
    request.seats = maxSeatsOf(estimate);
    request.releaseDelayMs = estimate.finalSeats > 0 ? estimate.additionalLatencyMs : 0;
    request.level = level;
    request.replicaLevel = replicaLevel;
    flow.seats += request.seats;
    flow.executing++;
    flow.noteDispatched(nowMs - request.arrivedMs, request.seats);
    level.addSeats(nowMs, request.seats);
    level.noteDispatched();
    replicaLevel?.addSeats(nowMs, request.seats);
    replicaLevel?.noteDispatched();
    const replica = request.replica;
    if (replica.cpu !== undefined) {
      request.cpuDemand = cpuDemandOf(cpuMsOf(source.cost.cpuMs, request.objects), request.serviceMs);
      request.memoryBytes = responseBytesOf(request.returned, source.cost.objectBytes);
    }
    if (replica.mainThread !== undefined) this.startOnMainThread(request, replica.mainThread);
    else if (runsOnPool(request.returned)) replica.executor.execute(request);
    else if (replica.cpu !== undefined) replica.cpu.start(request);
    else this.clock.scheduleTask(request.serviceMs, request);
  }

  /** With server.mainThread: the request's slice on the main thread, its pool work when it has some, then the rest of it. */
  private startOnMainThread(request: InFlight, mainThread: MainThread): void {
    const replica = request.replica;
    const onPool = runsOnPool(request.returned) && this.scenario.server.executorThreads !== 0;
    const cost = request.source.cost;
    const explicit = { cpuMs: cpuMsOf(cost.cpuMs, request.objects), sliceMs: cost.mainThreadCpuMs };
    const { cpuMs, sliceMs } =
      cost.meanServiceMs === undefined || explicit.sliceMs === undefined
        ? explicit
        : variedCostOf(explicit.cpuMs, explicit.sliceMs, request.serviceMs, cost.meanServiceMs);
    const split = mainThreadSplitOf(cpuMs, sliceMs, onPool, request.serviceMs);
    const rest = (): void => {
      if (onPool) this.clock.scheduleTask(split.restMs, request);
      else replica.cpu!.start({ serviceMs: split.restMs, cpuDemand: split.restDemand, memoryBytes: request.memoryBytes, fire: () => request.fire() });
    };
    const poolWork: CpuWork & VirtualWork = { serviceMs: split.poolMs, cpuDemand: 1, memoryBytes: request.memoryBytes, fire: rest };
    mainThread.run(split.sliceMs, onPool ? () => replica.executor.execute(poolWork) : rest);
  }

  finish(request: InFlight): void {
    const nowMs = this.clock.now();
    const flow = request.source.flow;
    flow.touch(nowMs);
    flow.executing--;
    flow.completed++;
    const latencyMs = nowMs - request.arrivedMs;
    flow.latency.record(latencyMs);
    if (latencyMs > request.source.timeoutMs) flow.deadlineExceeded++;
    // Our books first, so that requests the release dispatches are counted after it.
    if (request.releaseDelayMs > 0) this.clock.after(request.releaseDelayMs, () => this.releaseSeats(request));
    else this.releaseSeats(request);
    request.finish();
    this.recycle(request);
  }

  /**
   * A finished request goes back to `spare` when nothing holds it any more: its seats released at
   * once by us and by the queue set, and no capacity model that may keep its work.
   */
  private recycle(request: InFlight): void {
    const replica = request.replica;
    if (request.releaseDelayMs > 0 || request.additionalLatencyMs > 0 || replica.cpu !== undefined || replica.mainThread !== undefined) return;
    this.toSpare(request);
  }

  private toSpare(request: InFlight): void {
    request.nextSpare = this.spare;
    this.spare = request;
  }

  private releaseSeats(request: InFlight): void {
    const nowMs = this.clock.now();
    const flow = request.source.flow;
    flow.touch(nowMs);
    flow.seats -= request.seats;
    request.level!.addSeats(nowMs, -request.seats);
    request.replicaLevel?.addSeats(nowMs, -request.seats);
  }

  private limitsChanged(replica: Replica, levels: readonly LevelDump[]): void {
    if (!this.configured) return;
    const nowMs = this.clock.now();
    for (const dump of levels) {
      setLimits(this.multi ? this.replicaLevel(replica, dump.name) : this.level(dump.name), dump, nowMs);
      if (this.multi) this.sumReplicas(dump, nowMs);
    }
  }

  /** The run's books of a level are the sums of its replicas' limits and CurrentCL. */
  private sumReplicas(dump: LevelDump, nowMs: number): void {
    setLimits(this.level(dump.name), summedDump(dump, this.replicas), nowMs);
  }

  // --- workload --------------------------------------------------------------------------------

  private submit(replica: Replica, source: RequestSource, serviceMs: number): void {
    source.flow.noteArrived();
    const spare = this.spare;
    if (spare !== undefined) this.spare = spare.nextSpare;
    const nowMs = this.clock.now();
    const request = spare === undefined ? new InFlight(this, replica, source, nowMs, serviceMs) : spare.renew(replica, source, nowMs, serviceMs);
    this.estimating.objects = source.objects;
    this.estimating.watchers = source.watchers;
    this.admitting = request;
    replica.controller.admitRecord(request);
    this.admitting = undefined;
  }

  private startFlow(spec: FlowSpec): void {
    const flow = this.addFlow(spec.name, 'scenario');
    const prng = streamPrng(this.input.seed, `flow:${spec.name}`);
    const digest = requestDigest({
      user: spec.user,
      groups: spec.groups,
      verb: spec.verb,
      resource: spec.resource,
      apiGroup: spec.apiGroup,
      namespace: spec.namespace,
      subresource: spec.subresource,
      name: spec.objectName,
      nonResourcePath: spec.path,
    });
    const arrivals = arrivalProcess(spec.arrival, spec.startMs);
    const service = serviceSampler(spec.service);
    const stopMs = Math.min(spec.stopMs, this.scenario.durationMs);
    const clock = this.clock;
    const source: RequestSource = {
      flow,
      cost: {
        cpuMs: spec.cpuMs,
        mainThreadCpuMs: spec.mainThreadCpuMs,
        meanServiceMs: spec.mainThreadCpuVaries ? serviceMeanMs(spec.service) : undefined,
        objectBytes: spec.objectBytes,
      },
      digest,
      query: spec.query,
      objects: spec.objects,
      returns: spec.returns,
      watchers: spec.watchers,
      waitLimitMs: spec.waitLimitMs,
      timeoutMs: spec.timeoutMs,
      levelBooks: undefined,
      levelBooksFor: undefined,
    };
    // Each client connects once, at the start, and keeps its replica; its requests take turns.
    const pick = this.assigner.picker(spec.name);
    const clients: Replica[] = [];
    for (let i = 0; i < spec.clients; i++) clients.push(pick());
    let arrival = 0;
    const fire = (): void => {
      // Draw order per arrival is fixed (service time, then the next gap), whatever the engine does.
      const serviceMs = service.nextMs(prng);
      const replica = clients.length === 1 ? clients[0]! : clients[arrival++ % clients.length]!;
      this.submit(replica, source, serviceMs);
      const nextMs = arrivals.next(prng, clock.now());
      if (nextMs < stopMs) clock.schedule(nextMs - clock.now(), fire);
    };
    const firstMs = arrivals.first(prng);
    if (firstMs < stopMs) clock.schedule(firstMs, fire);
  }

  private startReplay(log: AuditLog): () => NonNullable<SimulationResult['audit']> {
    const requests = log.requests;
    const durationMs = this.scenario.durationMs;
    const flows = new Map<string, FlowMetrics>();
    const digests = new Map<string, RequestDigest>();
    const serverTimeoutMs = this.scenario.server.requestTimeoutMs;
    const grouping = this.input.auditGrouping ?? DEFAULT_AUDIT_GROUPING;
    // The same classifier the controller builds from this configuration, to name flows by schema.
    const classifier = buildClassifier(this.input.loaded.config.flowSchemas, this.input.loaded.config.priorityLevels);
    let next = 0;
    // A replayed flow is one client: it keeps the replica it connected to first.
    const replicaOf = new Map<FlowMetrics, Replica>();
    const fire = (): void => {
      const request = requests[next++]!;
      const shape = request.shape;
      const key = JSON.stringify([
        shape.user,
        shape.groups,
        shape.verb,
        shape.apiGroup,
        shape.resource,
        shape.subresource,
        shape.namespace,
        shape.name,
        shape.nonResourcePath,
      ]);
      let digest = digests.get(key);
      if (digest === undefined) {
        digest = requestDigest(shape);
        digests.set(key, digest);
      }
      const flowSchema = grouping === 'user+flowschema' || grouping === 'flowschema' ? (classifier.classify(digest).flowSchema.metadata?.name ?? '') : '';
      const flowName = auditFlowName(grouping, shape, request.userAgent, flowSchema);
      let flow = flows.get(flowName);
      if (flow === undefined) {
        flow = this.addFlow(flowName, 'audit-log');
        flows.set(flowName, flow);
        replicaOf.set(flow, this.assigner.picker(flowName)());
      }
      // A request's own ?timeout= (capped at --request-timeout) sets its deadline, and a quarter
      // of the deadline (at most a minute) is how long it may wait in a queue, as in kube-apiserver.
      const timeoutMs = requestDeadlineMs(request.query.timeout, serverTimeoutMs);
      const waitLimitMs = Math.min(timeoutMs / 4, MAX_WAIT_LIMIT_MS);
      const source: RequestSource = {
        flow,
        cost: AUDIT_COST,
        digest,
        query: request.query,
        objects: undefined,
        returns: undefined,
        watchers: 0,
        waitLimitMs,
        timeoutMs,
        levelBooks: undefined,
        levelBooksFor: undefined,
      };
      this.submit(replicaOf.get(flow)!, source, request.serviceMs);
      const following = requests[next];
      if (following !== undefined && following.arrivalMs < durationMs) this.clock.schedule(following.arrivalMs - this.clock.now(), fire);
    };
    if (requests.length > 0 && requests[0]!.arrivalMs < durationMs) this.clock.schedule(requests[0]!.arrivalMs, fire);
    return () => ({
      file: log.file,
      requests: requests.length,
      replayed: next,
      beyondDuration: requests.length - next,
      skipped: log.skipped,
      originallyRejected: requests.filter((r) => r.originalCode === 429).length,
    });
  }

  // --- books -----------------------------------------------------------------------------------

  private objectCount(groupResource: string): ObjectCountResult {
    const objects = this.estimating.objects;
    const result = objects !== undefined ? { count: objects } : this.objectCounts.get(groupResource);
    // The executor model routes the request by how many objects it lists, unless the flow says how many it returns.
    if (this.admitting !== undefined) this.admitting.objects = typeof result === 'object' ? result.count : undefined;
    return result;
  }

  private addFlow(name: string, source: FlowMetrics['source']): FlowMetrics {
    const flow = new FlowMetrics(name, source);
    for (let i = 0; i < this.bucketsClosed; i++) flow.closeBucket();
    this.flows.push(flow);
    return flow;
  }

  private level(name: string): LevelMetrics {
    let level = this.levels.get(name);
    if (level === undefined) {
      level = new LevelMetrics(name);
      for (let i = 0; i < this.bucketsClosed; i++) level.closeBucket(this.clock.now());
      this.levels.set(name, level);
    }
    return level;
  }

  /**
   * The run's books of the classification's level, through the source's memo of the last one:
   * the same classification is a pointer comparison (names are equal strings, not always one).
   */
  private levelOf(source: RequestSource, classification: Classification): LevelMetrics {
    const known = source.levelBooks;
    if (known !== undefined && (source.levelBooksFor === classification || known.name === classification.priorityLevelName)) {
      source.levelBooksFor = classification;
      return known;
    }
    source.levelBooksFor = classification;
    return (source.levelBooks = this.level(classification.priorityLevelName));
  }

  private replicaLevel(replica: Replica, name: string): LevelMetrics {
    let level = replica.levels.get(name);
    if (level === undefined) {
      level = new LevelMetrics(name);
      for (let i = 0; i < this.bucketsClosed; i++) level.closeBucket(this.clock.now());
      replica.levels.set(name, level);
    }
    return level;
  }

  private scheduleBucketClose(index: number): void {
    // The last bucket is closed by run() after the end instant has fully run.
    if (index >= this.bucketEndsMs.length - 1) return;
    this.clock.after(this.bucketEndsMs[index]! - this.clock.now(), () => {
      this.closeBucket();
      this.scheduleBucketClose(index + 1);
    });
  }

  private closeBucket(): void {
    const nowMs = this.clock.now();
    for (const level of this.levels.values()) level.closeBucket(nowMs);
    for (const flow of this.flows) flow.closeBucket();
    for (const replica of this.replicas) {
      for (const level of replica.levels.values()) level.closeBucket(nowMs);
      replica.capacity?.closeBucket(nowMs);
    }
    this.bucketsClosed++;
  }
}

function requestDeadlineMs(timeoutParameter: string | undefined, serverTimeoutMs: number): number {
  if (timeoutParameter === undefined) return serverTimeoutMs;
  const parsed = parseDurationMs(timeoutParameter);
  return parsed.ok && parsed.ms > 0 && parsed.ms < serverTimeoutMs ? parsed.ms : serverTimeoutMs;
}

function setLimits(level: LevelMetrics, dump: LevelDump, nowMs: number): void {
  level.limits = dump.limits;
  level.exempt = dump.exempt;
  level.maxSeats = dump.maxSeats;
  level.queues = dump.queueSet.queues.length;
  level.setCurrentCL(nowMs, dump.currentCL);
}
