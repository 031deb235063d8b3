// The flow-control controller: turns the configuration stream (PLC and FlowSchema objects) into
// priority-level actors, runs the borrowing adjustment every 10 s on the injected clock, and
// answers `admit(request) → decision` (Kubernetes' apf_controller.go + the filter's Handle).
//
// Deterministic: time comes from the injected Clock, there is
// no randomness, and a rejection is a decision value, never an exception. The server, the
// simulator and the property suites all drive this same class.

import { Subject, type Observable, type Subscription } from 'rxjs';
import { createActor, type Actor } from 'xstate';
import type { Cancel, Clock } from '../clock.ts';
import { every } from '../periodic.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../resources/types.ts';
import { buildClassifier, type Classification, type Classifier } from './classifier.ts';
import { allocateCurrentLimits } from './concurrency-allocation.ts';
import { computeLevelLimits, sameLevelLimits, type LevelLimits } from './concurrency-limits.ts';
import { OneKeyWorkQueue } from './config-work-queue.ts';
import { levelConfigOf, type LevelConfig } from './level-config.ts';
import { maxSeatsForLevel } from './max-seats.ts';
import { createPriorityLevelMachine, type PriorityLevelMachine } from './priority-level.machine.ts';
import {
  QueueSetEntry,
  type Admission,
  type Decision,
  type QueueSet,
  type QueueSetDump,
  type QueueSetObserver,
  type QueueSetRequest,
  type RejectReason,
} from './queue-set.ts';
import { goRound } from '../go-math.ts';
import type { RequestDigest } from './request-digest.ts';
import { DroppedRequestsTracker } from './retry-after.ts';
import { BORROWING_ADJUSTMENT_PERIOD_MS, type SeatDemandStats, type SeatDemandTracker } from './seat-demand.ts';
import { estimateWork, type WorkEstimate, type WorkEstimateRequest, type WorkEstimatorDeps } from './work-estimate.ts';

/** The configuration the controller digests: every PLC and FlowSchema, as stored (defaulted). */
export interface FlowcontrolConfig {
  priorityLevels: readonly PriorityLevelConfiguration[];
  flowSchemas: readonly FlowSchema[];
  /** From a stream following the store: the one change that led to this emission (none after a list). */
  change?: ConfigChange | undefined;
}

export interface ConfigChange {
  type: 'ADDED' | 'MODIFIED' | 'DELETED';
  /** Which of the two lists the object is in. */
  of: 'priorityLevels' | 'flowSchemas';
  object: PriorityLevelConfiguration | FlowSchema;
  /**
   * Whether APF reads what changed, as upstream's informer handlers decide: a level's spec, a
   * FlowSchema's spec or status, any addition or deletion. A metadata-only update is not.
   */
  apfRelevant: boolean;
}

export interface FlowControllerOptions {
  clock: Clock;
  /** ServerCL: --max-requests-inflight + --max-mutating-requests-inflight (600 by default). */
  serverConcurrencyLimit: number;
  /** How long a request may wait in a queue unless it says otherwise: request timeout / 4, at most 1 min. */
  defaultWaitLimitMs: number;
  apiDomain?: string | undefined;
  /** Object counts and watch counts for the work estimator. */
  estimator: WorkEstimatorDeps;
  observer?: FlowControlObserver | undefined;
  /** Minimum time between two digests of a changing configuration (config-work-queue.ts). */
  configDigestMinIntervalMs?: number;
  /** A digest threw; it is retried with backoff. */
  onDigestError?: (error: unknown, failures: number) => void;
}

/** What the controller knows about one request while it is in the engine. */
export interface RequestDescriptor {
  readonly id: number;
  readonly priorityLevel: string;
  /** The level is exempt: its requests never wait (Kubernetes records no queue wait for them). */
  readonly exempt: boolean;
  readonly flowSchema: string;
  readonly flowDistinguisher: string;
  readonly digest: RequestDigest;
  readonly arrivalMs: number;
}

/**
 * Metrics hooks (the API layer connects Prometheus here); every call is synchronous. `nowMs` is
 * the controller's clock at the event (one reading shared by all the hooks of one event).
 */
export interface FlowControlObserver {
  /** Once per admitted request, after classification and estimation, before the queue set sees it. */
  estimated?(request: RequestDescriptor, workEstimate: WorkEstimate): void;
  /** `fromQueue`: the request had been queued (and `queued` was called for it). */
  dispatched?(request: RequestDescriptor, waitMs: number, fromQueue: boolean, nowMs: number): void;
  rejected?(request: RequestDescriptor, reason: RejectReason, waitMs: number, nowMs: number): void;
  /** `queueId`, `idleQueues`: see QueueSetObserver.queued. */
  queued?(request: RequestDescriptor, queueLengthAfter: number, nowMs: number, queueId?: number, idleQueues?: number): void;
  finished?(request: RequestDescriptor, executionMs: number, nowMs: number): void;
  /** The interested-watch count the mutating work estimator used (watch_count_samples). */
  watchCountSampled?(request: RequestDescriptor, count: number): void;
  /**
   * A level's counts or denominators changed (many times per request; read, do not keep).
   * Called on every change of seats or requests and after every change of its limit or queuing.
   */
  levelChanged?(level: LevelGauges, nowMs: number): void;
  /**
   * After a digest: Σ queues × queueLengthLimit over queuing levels, and Σ NominalCL, the
   * denominators of the waiting and executing request ratios across levels.
   */
  capacityChanged?(maxWaitingRequests: number, maxExecutingRequests: number): void;
  noAccommodation?(request: RequestDescriptor): void;
  /** After every borrowing adjustment and configuration change. */
  limitsChanged?(levels: readonly LevelDump[], fairFrac: number): void;
  /** A level's progress meter went through Kubernetes' epoch advance (queue-set.ts). */
  epochAdvanced?(priorityLevel: string, success: boolean): void;
  /** An `admit` callback threw while the engine delivered its outcome (queue-set.ts says where it goes). */
  callbackFailed?(request: RequestDescriptor, error: unknown): void;
}

/**
 * One request as a caller hands it to `admit`. The controller reads `waitLimitMs` and `arrivalMs`
 * from it when it needs them (the wait limit only if the request waits in a queue) rather than
 * copying them, so they must not change while the request is in the engine.
 */
export interface AdmitRequest {
  digest: RequestDigest;
  query: WorkEstimateRequest['query'];
  /** Overrides the default wait limit (e.g. a quarter of the request's own `?timeout=`). */
  readonly waitLimitMs?: number | undefined;
  /** The controller's clock as the caller read it just before `admit`; read by `admit` when absent. */
  readonly arrivalMs?: number | undefined;
  /** Skips estimation (the simulator knows the seats of replayed requests). */
  workEstimate?: WorkEstimate | undefined;
  /**
   * Called synchronously inside `admit`, before any outcome: lets a caller that does not wait for
   * the decision (the server's shadow mode) still learn the classification.
   */
  onClassified?(classification: Classification, request: RequestDescriptor, workEstimate: WorkEstimate): void;
}

export interface AdmitOutcome {
  /** The object passed to `admit`, so that one callback can serve many requests. */
  admitted: AdmitRequest;
  request: RequestDescriptor;
  classification: Classification;
  workEstimate: WorkEstimate;
  decision: Decision;
  /** Seconds for `Retry-After` on a rejection. */
  retryAfterSeconds: number;
}

export interface LevelDump {
  name: string;
  uid: string;
  exempt: boolean;
  state: 'active' | 'quiescing' | 'removed';
  limits: LevelLimits;
  currentCL: number;
  maxSeats: number;
  demandStats: SeatDemandStats;
  queueSet: QueueSetDump<RequestDescriptor>;
}

export interface ControllerDump {
  serverConcurrencyLimit: number;
  flowSchemas: { name: string; uid: string; priorityLevel: string; matchingPrecedence: number }[];
  danglingFlowSchemas: string[];
  levels: LevelDump[];
}

type LevelActor = Actor<PriorityLevelMachine<RequestDescriptor>>;

/**
 * A level as the controller holds it: its actor, the hot-path structures the actor made (handed
 * over once, called per request), and the part of the actor's state a request reads, kept by a
 * subscription to the actor's snapshots so that no request reads a snapshot.
 */
interface Level {
  readonly actor: LevelActor;
  readonly queueSet: QueueSet<RequestDescriptor>;
  readonly demand: SeatDemandTracker;
  /** The actor's state as of its last snapshot. */
  state: LevelDump['state'];
  /** The actor's maxSeats as of its last snapshot, for the work estimator. */
  maxSeats: number;
}

/** What one digest produced, for the writers that follow it (the Dangling status writer). */
export interface DigestedConfig {
  config: FlowcontrolConfig;
  /** Names of the FlowSchemas whose priority level is missing or broken. */
  danglingFlowSchemas: ReadonlySet<string>;
}

/** The next FlowController.levelsVersion, shared by all controllers so that no two use one version. */
let nextLevelsVersion = 1;

const EMPTY_CONFIG: FlowcontrolConfig = Object.freeze({ priorityLevels: [], flowSchemas: [] });

export class FlowController {
  private readonly machine = createPriorityLevelMachine<RequestDescriptor>();
  private readonly levels = new Map<string, Level>();
  /**
   * Changes whenever `levels` does. A classification carries the level it was last admitted to
   * with the version it was found under (Classification.admittedTo), so a flow seen before finds
   * its level by one property read, not a lookup by name; versions are unique across controllers.
   */
  private levelsVersion = nextLevelsVersion++;
  /** Kept for the server's lifetime, as the filter's DroppedRequestsTracker is: a level that comes back keeps its history. */
  private readonly dropped = new DroppedRequestsTracker();
  /** Level configs by object: unchanged objects are not re-derived at every digest. */
  private readonly levelConfigs = new WeakMap<PriorityLevelConfiguration, LevelConfig>();
  private readonly configQueue: OneKeyWorkQueue;
  private readonly digests = new Subject<DigestedConfig>();
  private readonly levelGauges = new Map<string, LevelGauges>();
  private latestConfig: FlowcontrolConfig = EMPTY_CONFIG;
  /** The estimator's dependencies, reporting the watch count it used into `sampledWatchCount`. */
  private readonly estimator: WorkEstimatorDeps;
  private sampledWatchCount = -1;
  private classifier: Classifier;
  private nominalCLSum = 0;
  private fairFrac = 0;
  private nextRequestId = 1;
  private digestCount = 0;
  private subscriptions: Subscription[] = [];
  private stopAdjusting: Cancel | undefined;

  constructor(private readonly options: FlowControllerOptions) {
    this.estimator = { ...options.estimator, watchCountSampled: (count) => (this.sampledWatchCount = count) };
    this.classifier = buildClassifier([], [], { apiDomain: options.apiDomain });
    this.configQueue = new OneKeyWorkQueue(options.clock, () => this.configure(this.latestConfig), {
      minIntervalMs: options.configDigestMinIntervalMs,
      onError: options.onDigestError,
    });
    this.configure(EMPTY_CONFIG);
  }

  /**
   * Follows a configuration stream and adjusts borrowing every 10 s until `stop()`. Changes are
   * coalesced as Kubernetes' controller coalesces them (config-work-queue.ts): the newest
   * configuration is digested at most once per interval however many changes arrive.
   */
  start(config$?: Observable<FlowcontrolConfig>): void {
    if (config$ !== undefined) {
      this.subscriptions.push(
        config$.subscribe((config) => {
          this.latestConfig = config;
          if (config.change?.apfRelevant !== false) this.configQueue.add();
        }),
      );
    }
    this.stopAdjusting = every(this.options.clock, BORROWING_ADJUSTMENT_PERIOD_MS, () => this.adjustBorrowing());
  }

  stop(): void {
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions = [];
    this.stopAdjusting?.();
    this.stopAdjusting = undefined;
    this.configQueue.stop();
    this.digests.complete();
    for (const level of this.levels.values()) level.actor.stop();
  }

  /** Every digest, as it happens (the configuration and what it found dangling). */
  get digested$(): Observable<DigestedConfig> {
    return this.digests.asObservable();
  }

  /** How many times a configuration was digested (the constructor's empty one included). */
  get configDigests(): number {
    return this.digestCount;
  }

  /**
   * Digests a complete configuration at once (Kubernetes' digestConfigObjects): new levels start
   * at NominalCL − ⌊LendableCL/2⌋, deleted ones quiesce until idle and keep their share meanwhile,
   * the mandatory ones are imagined when missing, then limits and borrowing are recomputed. Levels
   * whose object changed are sent CONFIGURE, those whose limits alone changed LIMITS, the others
   * nothing, so a digest of thousands of unchanged levels costs a pass over them, not an event each.
   */
  configure(config: FlowcontrolConfig): void {
    this.latestConfig = config;
    this.classifier = buildClassifier(config.flowSchemas, config.priorityLevels, { apiDomain: this.options.apiDomain });
    const wanted = this.classifier.priorityLevels;

    for (const [name, level] of this.levels) {
      if (wanted.has(name)) {
        // A level reaped since the last digest and now wanted again starts afresh.
        if (level.state === 'removed') {
          this.levels.delete(name);
          this.levelsVersion = nextLevelsVersion++;
          this.levelGauges.delete(name);
        }
        continue;
      }
      if (level.state === 'removed' || level.queueSet.isIdle) {
        level.actor.stop();
        this.levels.delete(name);
        this.levelsVersion = nextLevelsVersion++;
        this.levelGauges.delete(name);
      } else if (level.state !== 'quiescing') {
        level.actor.send({ type: 'DELETED' });
      }
    }

    const inputs: LevelConfig[] = [];
    for (const plc of wanted.values()) inputs.push(this.levelConfigOf(plc));
    // Quiescing levels keep the share their last configuration gave them.
    for (const [name, level] of this.levels) if (!wanted.has(name)) inputs.push(level.actor.getSnapshot().context.config);
    const computed = computeLevelLimits(
      this.options.serverConcurrencyLimit,
      inputs.map((c) => c.limitsInput),
    );
    this.nominalCLSum = computed.nominalCLSum;

    inputs.forEach((config, i) => {
      const limits = computed.levels[i]!;
      const existing = this.levels.get(config.name);
      // apf_controller.go sets maxSeats only for a level that queues; one that switched to
      // Reject keeps the value its queuing gave it until the level is dropped.
      const maxSeats = config.queuing.desiredNumQueues > 0 ? maxSeatsForLevel(limits.nominalCL, config.queuing.handSize) : (existing?.maxSeats ?? 0);
      const plc = wanted.get(config.name);
      if (existing === undefined) {
        this.startLevel(plc!, config, limits, maxSeats);
        return;
      }
      const context = existing.actor.getSnapshot().context;
      // A new object (or a level coming back) is reconfigured; otherwise only the limits may
      // change, and the borrowing adjustment below turns them into a CurrentCL. A quiescing
      // level keeps a share from its last spec, so its limits follow every digest too.
      if (plc !== undefined && (plc !== context.plc || existing.state === 'quiescing')) {
        existing.actor.send({ type: 'CONFIGURE', plc, config, limits, maxSeats });
        this.notifyLevelChanged(config.name);
      } else if (maxSeats !== context.maxSeats || !sameLevelLimits(limits, context.limits)) {
        existing.actor.send({ type: 'LIMITS', limits, maxSeats });
      }
    });
    this.adjustBorrowing();
    if (this.options.observer?.capacityChanged !== undefined) {
      let maxWaiting = 0;
      for (const c of inputs) if (c.queuing.desiredNumQueues > 0) maxWaiting += c.queuing.desiredNumQueues * c.queuing.queueLengthLimit;
      this.options.observer.capacityChanged(maxWaiting, this.nominalCLSum);
    }
    this.digestCount++;
    this.digests.next({ config, danglingFlowSchemas: this.classifier.danglingFlowSchemas });
  }

  /** A new level's actor, and the level as the controller holds it, following the actor's snapshots. */
  private startLevel(plc: PriorityLevelConfiguration, config: LevelConfig, limits: LevelLimits, maxSeats: number): void {
    const actor = createActor(this.machine, {
      input: { clock: this.options.clock, plc, config, limits, maxSeats, observer: this.queueSetObserver(config.name) },
    });
    const { queueSet, demand } = actor.getSnapshot().context;
    const level: Level = { actor, queueSet, demand, state: 'active', maxSeats };
    actor.subscribe((snapshot) => {
      level.state = snapshot.status === 'done' ? 'removed' : (snapshot.value as 'active' | 'quiescing');
      level.maxSeats = snapshot.context.maxSeats;
    });
    this.levels.set(config.name, level);
    this.levelsVersion = nextLevelsVersion++;
    this.levelGauges.delete(config.name);
    actor.start();
    this.notifyLevelChanged(config.name);
  }

  private levelConfigOf(plc: PriorityLevelConfiguration): LevelConfig {
    let config = this.levelConfigs.get(plc);
    if (config === undefined) {
      config = levelConfigOf(plc);
      this.levelConfigs.set(plc, config);
    }
    return config;
  }

  /**
   * Classifies, estimates and admits one request. `onOutcome` is called exactly once, maybe
   * before `admit` returns. After an `execute` outcome the caller must call `finish()` once the
   * response is done; before an outcome, `cancel()` withdraws the request.
   */
  admit(request: AdmitRequest, onOutcome: (outcome: AdmitOutcome) => void): Admission {
    return this.admitAs(new CallerAdmission(request, onOutcome), request.workEstimate, request.onClassified);
  }

  /**
   * `admit` for a caller whose request is its own record (a subclass of AdmissionRecord, made for
   * one admission): the simulator's requests, which then cost one object each.
   */
  admitRecord(record: AdmissionRecord): Admission {
    return this.admitAs(record, undefined, undefined);
  }

  private admitAs(record: AdmissionRecord, givenEstimate: WorkEstimate | undefined, onClassified: AdmitRequest['onClassified']): Admission {
    const classification = this.classifier.classify(record.digest);
    const level = this.levelOf(classification);
    this.sampledWatchCount = -1;
    record.id = this.nextRequestId++;
    record.classification = classification;
    record.defaultWaitLimitMs = this.options.defaultWaitLimitMs;
    if (record.givenArrivalMs === undefined) record.clockArrivalMs = this.options.clock.now();
    // The record is also the estimator's view of the request: no object made for the call.
    const workEstimate = givenEstimate ?? estimateWork(record, this.estimator, level.maxSeats);
    record.workEstimate = workEstimate;
    this.options.observer?.estimated?.(record, workEstimate);
    if (this.sampledWatchCount >= 0) this.options.observer?.watchCountSampled?.(record, this.sampledWatchCount);
    onClassified?.(classification, record, workEstimate);
    return level.queueSet.startEntry(record, this.decided);
  }

  private levelOf(classification: Classification): Level {
    const memo = classification.admittedTo;
    if (memo !== undefined && memo.version === this.levelsVersion) return memo.level as Level;
    const level = this.levels.get(classification.priorityLevelName)!;
    classification.admittedTo = { version: this.levelsVersion, level };
    return level;
  }

  /** The queue set's verdict on one request; one function for all of them. */
  private readonly decided = (decision: Decision, request: QueueSetRequest<RequestDescriptor>): void => {
    const record = request as AdmissionRecord;
    if (decision.kind === 'reject') {
      const nowSeconds = Math.floor(this.options.clock.now() / 1000);
      this.dropped.recordDropped(record.priorityLevel, nowSeconds);
      record.retryAfterSeconds = this.dropped.retryAfter(record.priorityLevel, nowSeconds);
    }
    record.decision = decision;
    record.onDecided();
  };

  /**
   * The borrowing adjustment (updateBorrowingLocked): close each level's demand period,
   * reallocate CurrentCL, and send BORROWED to the levels whose CurrentCL changed (their actor
   * applies it to their queue set).
   */
  adjustBorrowing(): void {
    const nowMs = this.options.clock.now();
    const live: Level[] = [];
    for (const level of this.levels.values()) {
      if (level.state === 'removed') continue;
      level.demand.closePeriod(nowMs);
      live.push(level);
    }
    const result = allocateCurrentLimits({
      nominalCLSum: this.nominalCLSum,
      levels: live.map(({ actor, demand }) => {
        const { name, config, limits, currentCL } = actor.getSnapshot().context;
        return {
          name,
          exempt: config.exempt,
          nominalCL: limits.nominalCL,
          minCL: limits.minCL,
          maxCL: limits.maxCL,
          highWatermark: demand.stats.highWatermark,
          smoothedDemand: demand.stats.smoothed,
          previousCurrentCL: currentCL,
        };
      }),
    });
    this.fairFrac = result.fairFrac;
    result.levels.forEach((allocation, i) => {
      const { actor } = live[i]!;
      const { name, currentCL } = actor.getSnapshot().context;
      if (allocation.currentCL === currentCL) return;
      actor.send({ type: 'BORROWED', currentCL: allocation.currentCL });
      this.notifyLevelChanged(name);
    });
    const observer = this.options.observer;
    if (observer?.limitsChanged !== undefined) observer.limitsChanged(this.dumpLevels(), this.fairFrac);
  }

  /** Plain data for the debug endpoints, the simulator's report and tests. */
  dump(): ControllerDump {
    return {
      serverConcurrencyLimit: this.options.serverConcurrencyLimit,
      flowSchemas: this.classifier.flowSchemas.map((fs) => ({
        name: fs.metadata?.name ?? '',
        uid: fs.metadata?.uid ?? '',
        priorityLevel: fs.spec?.priorityLevelConfiguration?.name ?? '',
        matchingPrecedence: fs.spec?.matchingPrecedence ?? 0,
      })),
      danglingFlowSchemas: [...this.classifier.danglingFlowSchemas].sort(),
      levels: this.dumpLevels(),
    };
  }

  /** How long a request without a deadline of its own may wait in a queue. */
  get defaultWaitLimitMs(): number {
    return this.options.defaultWaitLimitMs;
  }

  get seatFairFrac(): number {
    return this.fairFrac;
  }

  /** Levels by name; each level's queue set is dumped when first read (most readers want only limits). */
  private dumpLevels(): LevelDump[] {
    return [...this.levels.values()]
      .map((level) => {
        const c = level.actor.getSnapshot().context;
        let queueSet: QueueSetDump<RequestDescriptor> | undefined;
        const dump: Omit<LevelDump, 'queueSet'> = {
          name: c.name,
          uid: c.plc.metadata?.uid ?? '',
          exempt: c.config.exempt,
          state: level.state,
          limits: c.limits,
          currentCL: c.currentCL,
          maxSeats: c.maxSeats,
          demandStats: level.demand.stats,
        };
        return Object.defineProperty(dump, 'queueSet', { enumerable: true, get: () => (queueSet ??= c.queueSet.dump()) }) as LevelDump;
      })
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /**
   * Hooks one level's queue set to demand integration, metrics and lifecycle events. These run
   * several times per request, so what they need of the level (its record, demand tracker and
   * gauges) is looked up once it exists, not per call; during the queue set's construction it does
   * not yet. The observer's own hooks are handed over bound, without a forwarding call each.
   */
  private queueSetObserver(levelName: string): QueueSetObserver<RequestDescriptor> {
    const observer = this.options.observer ?? {};
    let known: Level | undefined;
    const level = () => (known ??= this.levels.get(levelName));
    let demand: SeatDemandTracker | undefined;
    let gauges: LevelGauges | undefined;
    const gaugesChanged =
      observer.levelChanged === undefined
        ? undefined
        : (nowMs: number) => {
            gauges ??= this.gaugesOf(levelName);
            if (gauges !== undefined) observer.levelChanged!(gauges, nowMs);
          };
    // apf_controller.go maybeReap: a quiescing level that went idle asks for a digest, which drops
    // it and gives its share back to the others.
    const afterLeaving = () => {
      const current = level();
      if (current === undefined || current.state !== 'quiescing') return;
      current.actor.send({ type: 'IDLE_CHECK' });
      if (current.actor.getSnapshot().status === 'done') this.configQueue.add();
    };
    const finished = observer.finished?.bind(observer);
    const rejected = observer.rejected?.bind(observer);
    return {
      seatDemandChanged: (seatDemand, nowMs) => {
        demand ??= level()?.demand;
        demand?.set(seatDemand, nowMs);
        gaugesChanged?.(nowMs);
      },
      queued: observer.queued?.bind(observer),
      dispatched: observer.dispatched?.bind(observer),
      noAccommodation: observer.noAccommodation?.bind(observer),
      rejected: (d, reason, waitMs, nowMs) => {
        rejected?.(d, reason, waitMs, nowMs);
        afterLeaving();
      },
      finished: (d, executionMs, nowMs, releasing) => {
        finished?.(d, executionMs, nowMs);
        // Seats released in the same event: the seat-demand change that follows updates the
        // gauges once for both, at the same instant.
        if (!releasing) gaugesChanged?.(nowMs);
        afterLeaving();
      },
      epochAdvanced: observer.epochAdvanced === undefined ? undefined : (success) => observer.epochAdvanced!(levelName, success),
      // Without a hook the queue set rethrows on a clock task of its own.
      decideFailed: observer.callbackFailed === undefined ? undefined : (d, error) => observer.callbackFailed!(d, error),
    };
  }

  /** One stable view per level, made when the level's actor exists. */
  private gaugesOf(levelName: string): LevelGauges | undefined {
    let gauges = this.levelGauges.get(levelName);
    if (gauges === undefined) {
      const level = this.levels.get(levelName);
      if (level === undefined) return undefined;
      gauges = new LevelGaugesView(levelName, level.queueSet, this.options.serverConcurrencyLimit);
      this.levelGauges.set(levelName, gauges);
    }
    return gauges;
  }

  /** After a change of a level's limit or queuing: the ratios' denominators moved. */
  private notifyLevelChanged(levelName: string): void {
    const observer = this.options.observer;
    if (observer?.levelChanged === undefined) return;
    const gauges = this.gaugesOf(levelName);
    if (gauges !== undefined) observer.levelChanged(gauges, this.options.clock.now());
  }
}

/** A level's live numbers, for the timing-ratio metrics. Read them during the call. */
export interface LevelGauges {
  readonly priorityLevel: string;
  readonly seatsInUse: number;
  readonly seatsWaiting: number;
  readonly requestsExecuting: number;
  readonly requestsWaiting: number;
  /** apf_controller.go: CurrentCL, or max(1, round(ServerCL / 10)) when that is 0. */
  readonly concurrencyDenominator: number;
  /** queueset.go: what waiting requests are measured against. */
  readonly waitingCapacity: number;
  /** The observer's own state for this level (its series), so that a change needs no lookup by name. */
  observed: unknown;
}

class LevelGaugesView implements LevelGauges {
  observed: unknown = undefined;
  /** The denominator of a level whose CurrentCL is 0, worked out once: it is read at every change of the level's counts. */
  private readonly zeroLimitDenominator: number;

  constructor(
    readonly priorityLevel: string,
    private readonly queueSet: QueueSet<RequestDescriptor>,
    serverConcurrencyLimit: number,
  ) {
    this.zeroLimitDenominator = Math.max(1, goRound(serverConcurrencyLimit / 10));
  }

  get seatsInUse(): number {
    return this.queueSet.seatsInUse;
  }

  get seatsWaiting(): number {
    return this.queueSet.seatsWaiting;
  }

  get requestsExecuting(): number {
    return this.queueSet.requestsExecuting;
  }

  get requestsWaiting(): number {
    return this.queueSet.requestsWaiting;
  }

  get concurrencyDenominator(): number {
    // The queue set's limit is the level's CurrentCL, applied before the dispatch it allows.
    const currentCL = this.queueSet.limit;
    return currentCL > 0 ? currentCL : this.zeroLimitDenominator;
  }

  get waitingCapacity(): number {
    return this.queueSet.waitingCapacity;
  }
}

/**
 * One request inside the controller. It is at once the queue set's entry and request, the
 * descriptor observers see, the work estimator's view of it and, once decided, the outcome: a
 * request costs the engine one object, not one per role (the simulator's allocation profile
 * counted 1.4 KB per request before). A caller may be its own record (`admitRecord`, the
 * simulator); `admit` wraps the caller's request in one. What the classification and the caller's
 * request hold is read from them, not copied.
 */
export abstract class AdmissionRecord extends QueueSetEntry<RequestDescriptor> implements RequestDescriptor, AdmitOutcome, WorkEstimateRequest {
  // Set by the controller before anyone else sees the record.
  id = 0;
  classification: Classification = UNCLASSIFIED;
  workEstimate: WorkEstimate = NO_ESTIMATE;
  decision: Decision = UNDECIDED;
  retryAfterSeconds = 0;
  defaultWaitLimitMs = 0;
  /**
   * The controller's reading when the caller gave no arrival time. The caller's own is read from
   * it, not copied: a fractional number copied into a field is a number boxed, per request.
   */
  clockArrivalMs: number | undefined = undefined;

  abstract readonly admitted: AdmitRequest;
  abstract readonly digest: RequestDigest;
  abstract readonly query: AdmitRequest['query'];
  /** The caller's arrival reading and wait limit, when it has its own (AdmitRequest's). */
  abstract readonly givenArrivalMs: number | undefined;
  abstract readonly givenWaitLimitMs: number | undefined;
  /** The decision is made (in `decision`): the record is the outcome, for its caller. */
  abstract onDecided(): void;

  override reuse(): void {
    super.reuse();
    this.workEstimate = NO_ESTIMATE;
    this.decision = UNDECIDED;
    this.retryAfterSeconds = 0;
    this.clockArrivalMs = undefined;
  }

  get arrivalMs(): number {
    return this.givenArrivalMs ?? this.clockArrivalMs!;
  }

  get waitLimitMs(): number {
    return this.givenWaitLimitMs ?? this.defaultWaitLimitMs;
  }

  get priorityLevel(): string {
    return this.classification.priorityLevelName;
  }

  get flowSchema(): string {
    return this.classification.flowSchemaName;
  }

  get flowDistinguisher(): string {
    return this.classification.flowDistinguisher;
  }

  get flowHash(): bigint {
    return this.classification.hashValue;
  }

  get flowKey(): Classification {
    return this.classification;
  }

  get exempt(): boolean {
    return this.classification.exempt;
  }

  get requestInfo(): RequestDigest['requestInfo'] {
    return this.digest.requestInfo;
  }

  get descriptor(): this {
    return this;
  }

  get request(): this {
    return this;
  }

  /** Dumps carry the record as their descriptor: its plain data, not the queue set's links. */
  toJSON(): Omit<RequestDescriptor, 'digest'> {
    const { id, priorityLevel, exempt, flowSchema, flowDistinguisher, arrivalMs } = this;
    return { id, priorityLevel, exempt, flowSchema, flowDistinguisher, arrivalMs };
  }
}

/** The record `admit` makes for a caller's request. */
class CallerAdmission extends AdmissionRecord {
  constructor(
    readonly admitted: AdmitRequest,
    private readonly onOutcome: (outcome: AdmitOutcome) => void,
  ) {
    super();
  }

  get digest(): RequestDigest {
    return this.admitted.digest;
  }

  get query(): AdmitRequest['query'] {
    return this.admitted.query;
  }

  get givenArrivalMs(): number | undefined {
    return this.admitted.arrivalMs;
  }

  get givenWaitLimitMs(): number | undefined {
    return this.admitted.waitLimitMs;
  }

  onDecided(): void {
    this.onOutcome(this);
  }
}

const NO_ESTIMATE: WorkEstimate = Object.freeze({ initialSeats: 0, finalSeats: 0, additionalLatencyMs: 0 });

/** Placeholder until the queue set decides; never handed to a caller. */
const UNDECIDED: Decision = Object.freeze({ kind: 'reject', reason: 'time-out' });

/** Placeholder until the controller classifies the record; never handed to anyone. */
const UNCLASSIFIED: Classification = Object.freeze({
  flowSchema: {} as FlowSchema,
  priorityLevel: {} as PriorityLevelConfiguration,
  flowDistinguisher: '',
  hashValue: 0n,
  fallback: false,
  flowSchemaName: '',
  priorityLevelName: '',
  exempt: false,
});
