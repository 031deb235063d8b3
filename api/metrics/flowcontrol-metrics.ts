// The `apiserver_flowcontrol_*` families (apf-semantics 9.4) that Fairway produces: every family
// kube-apiserver 1.32 shows by default (kube-flowcontrol-families.ts lists them, with their source),
// with its names, types, labels and buckets.
//
// Three sources:
// - events, through the controller's FlowControlObserver (dispatches, rejections, waits,
//   execution times, queue lengths, seat estimates, watch counts, epoch advances): each hook finds
//   the (level, schema) pair's cells once and adds to them, so the per-request cost stays a few
//   map lookups;
// - level counts on every change (`levelChanged`), for the timing-ratio histograms, which must
//   see how long each value lasted;
// - state, read from one `controller.dump()` per scrape (limits, demand statistics, requests in
//   queue and executing, R and the dispatch readings), so the hot path pays nothing for gauges.
//
// Per-(level, schema) gauges keep reporting 0 for a pair once seen, as Kubernetes' gauge vectors
// do, instead of vanishing when the pair goes idle.

import { realClock } from '../../engine/clock.ts';
import type {
  AdmitOutcome,
  ControllerDump,
  FlowControlObserver,
  FlowController,
  LevelDump,
  LevelGauges,
  RequestDescriptor,
} from '../../engine/flowcontrol/controller.ts';
import type { RejectReason } from '../../engine/flowcontrol/queue-set.ts';
import { seatSecondsToFloat } from '../../engine/flowcontrol/seat-seconds.ts';
import { maxSeatsOf } from '../../engine/flowcontrol/work-estimate.ts';
import {
  DEMAND_SEATS_BUCKETS,
  PRIORITY_LEVEL_REQUEST_UTILIZATION_BUCKETS,
  PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS,
  QUEUE_LENGTH_BUCKETS,
  QUEUE_WAIT_AND_EXECUTION_BUCKETS_SECONDS,
  READ_VS_WRITE_BUCKETS,
  WATCH_COUNT_SAMPLES_BUCKETS,
  WORK_ESTIMATED_SEATS_BUCKETS,
} from './buckets.ts';
import { CollectedFamily, CounterVec, HistogramVec, type CounterCell, type HistogramCell, type Sample } from './metric-family.ts';
import { TimingRatioHistogramVec, type TimingRatioCell } from './timing-ratio-histogram.ts';

const NS = 'apiserver_flowcontrol_';
const PAIR = ['priority_level', 'flow_schema'] as const;

interface PairCells {
  dispatched?: CounterCell;
  watchCount?: HistogramCell;
  rejected?: Partial<Record<RejectReason, CounterCell>>;
  unenforced?: Partial<Record<RejectReason, CounterCell>>;
  waitExecuted?: HistogramCell;
  waitRejected?: HistogramCell;
  executionRegular?: HistogramCell;
  executionWatch?: HistogramCell;
  queueLength?: HistogramCell;
  seats?: HistogramCell;
  noAccommodation?: CounterCell;
}

interface PairGauges {
  pl: string;
  fs: string;
  inqueueRequests: number;
  inqueueSeats: number;
  executingRequests: number;
  executingSeats: number;
}

/** A level's timing-ratio series. */
interface LevelRatioCells {
  seatUtilization: TimingRatioCell;
  requestsWaiting: TimingRatioCell;
  requestsExecuting: TimingRatioCell;
  demand: TimingRatioCell;
  /**
   * The denominators the cells were last given: nearly every change moves only numerators, so the
   * denominators are handed on only when they moved.
   */
  concurrencyDenominator: number;
  waitingCapacity: number;
}

/** server/filters: GET, LIST and WATCH are read-only; everything else is mutating. Compared, not looked up: it runs twice per request. */
function isReadOnlyVerb(verb: string): boolean {
  return verb === 'get' || verb === 'list' || verb === 'watch';
}

export interface FlowControlMetricsOptions {
  /** Milliseconds; the clock the controller runs on (default: the real clock). */
  now?: () => number;
  /**
   * --show-hidden-metrics-for-version: also the families deprecated before 1.32, which
   * component-base hides unless asked (request_concurrency_limit since 1.30, request_concurrency_in_use
   * since 1.31). Their help says since when, as component-base marks a deprecated metric.
   */
  showHidden?: boolean;
}

type DispatchReadings = NonNullable<LevelDump['queueSet']['dispatch']>;

export class FlowControlMetrics {
  private controller: FlowController | undefined;
  private readonly now: () => number;
  private readonly pairs = new Map<string, Map<string, PairCells>>();
  private lastPair: { pl: string; fs: string; cells: PairCells } | undefined;
  private readonly seenGaugePairs = new Map<string, { pl: string; fs: string }>();
  private scrape: { dump: ControllerDump; gauges?: PairGauges[] } | undefined;

  private readonly dispatched = new CounterVec(`${NS}dispatched_requests_total`, '[BETA] Requests that API Priority and Fairness started executing.', PAIR);
  private readonly rejected = new CounterVec(`${NS}rejected_requests_total`, '[BETA] Requests that API Priority and Fairness rejected, by reason.', [
    ...PAIR,
    'reason',
  ]);
  private readonly unenforced = new CounterVec(
    'fairway_flowcontrol_unenforced_rejections_total',
    'Shadow mode (--apf-enforce=false): requests whose shadow the queue set rejected but that were served anyway, by reason.',
    [...PAIR, 'reason'],
  );
  private readonly waitDuration = new HistogramVec(
    `${NS}request_wait_duration_seconds`,
    '[BETA] Time a request spent waiting in its queue, by whether it went on to execute.',
    [...PAIR, 'execute'],
    QUEUE_WAIT_AND_EXECUTION_BUCKETS_SECONDS,
  );
  private readonly execution = new HistogramVec(
    `${NS}request_execution_seconds`,
    '[ALPHA] Time a request held its seats while executing (a watch: until initialised).',
    [...PAIR, 'type'],
    QUEUE_WAIT_AND_EXECUTION_BUCKETS_SECONDS,
  );
  private readonly queueLength = new HistogramVec(
    `${NS}request_queue_length_after_enqueue`,
    '[ALPHA] Length of the queue a request joined, itself included.',
    PAIR,
    QUEUE_LENGTH_BUCKETS,
  );
  private readonly workSeats = new HistogramVec(
    `${NS}work_estimated_seats`,
    '[ALPHA] Seats estimated for a request (the larger of initial and final).',
    PAIR,
    WORK_ESTIMATED_SEATS_BUCKETS,
  );
  private readonly noAccommodation = new CounterVec(
    `${NS}request_dispatch_no_accommodation_total`,
    '[ALPHA] Dispatch attempts that stopped because the chosen request did not fit in the free seats.',
    PAIR,
  );
  private readonly watchCounts = new HistogramVec(
    `${NS}watch_count_samples`,
    '[ALPHA] Interested watches the work estimator counted for a write.',
    PAIR,
    WATCH_COUNT_SAMPLES_BUCKETS,
  );
  private readonly epochAdvances = new CounterVec(
    `${NS}epoch_advance_total`,
    "[ALPHA] Times a level's virtual time R was wound back, by whether every reading stayed valid.",
    ['priority_level', 'success'],
  );
  private readonly seatUtilization: TimingRatioHistogramVec;
  private readonly requestUtilization: TimingRatioHistogramVec;
  private readonly demandSeats: TimingRatioHistogramVec;
  private readonly readVsWrite: TimingRatioHistogramVec;
  /** By level name (levelRatioCells). */
  private readonly levelRatios = new Map<string, LevelRatioCells>();
  /** read_vs_write_current_requests: [waiting, executing] × [readOnly, mutating]; each cell keeps its count as its numerator. */
  private readonly readWriteCells: {
    waitingReadOnly: TimingRatioCell;
    waitingMutating: TimingRatioCell;
    executingReadOnly: TimingRatioCell;
    executingMutating: TimingRatioCell;
  };

  /** Feed this to `new FlowController({observer})`. */
  readonly observer: FlowControlObserver = {
    estimated: (d, estimate) => (this.cells(d).seats ??= this.workSeats.cell(d.priorityLevel, d.flowSchema)).observe(maxSeatsOf(estimate)),
    queued: (d, length, nowMs) => {
      (this.cells(d).queueLength ??= this.queueLength.cell(d.priorityLevel, d.flowSchema)).observe(length);
      this.countReadWrite(d, false, +1, nowMs);
    },
    dispatched: (d, waitMs, fromQueue, nowMs) => {
      const cells = this.cells(d);
      (cells.dispatched ??= this.dispatched.cell(d.priorityLevel, d.flowSchema)).value++;
      if (!d.exempt) {
        (cells.waitExecuted ??= this.waitDuration.cell(d.priorityLevel, d.flowSchema, 'true')).observe(waitMs / 1000);
      }
      if (fromQueue) this.countReadWrite(d, false, -1, nowMs);
      this.countReadWrite(d, true, +1, nowMs);
    },
    rejected: (d, reason, waitMs, nowMs) => {
      const cells = this.cells(d);
      ((cells.rejected ??= {})[reason] ??= this.rejected.cell(d.priorityLevel, d.flowSchema, reason)).value++;
      if (!d.exempt) {
        // apf_filter.go Handle: a request that was enqueued and left its queue unexecuted (a
        // time-out or cancellation) is observed with execute="true", as its req was not nil;
        // only one rejected on arrival is execute="false".
        const timedOut = reason === 'time-out';
        const cell = timedOut
          ? (cells.waitExecuted ??= this.waitDuration.cell(d.priorityLevel, d.flowSchema, 'true'))
          : (cells.waitRejected ??= this.waitDuration.cell(d.priorityLevel, d.flowSchema, 'false'));
        cell.observe(waitMs / 1000);
      }
      if (reason === 'time-out') this.countReadWrite(d, false, -1, nowMs);
    },
    finished: (d, executionMs, nowMs) => {
      const cells = this.cells(d);
      const cell =
        d.digest.requestInfo.verb === 'watch'
          ? (cells.executionWatch ??= this.execution.cell(d.priorityLevel, d.flowSchema, 'watch'))
          : (cells.executionRegular ??= this.execution.cell(d.priorityLevel, d.flowSchema, 'regular'));
      cell.observe(executionMs / 1000);
      this.countReadWrite(d, true, -1, nowMs);
    },
    noAccommodation: (d) => (this.cells(d).noAccommodation ??= this.noAccommodation.cell(d.priorityLevel, d.flowSchema)).value++,
    watchCountSampled: (d, count) => (this.cells(d).watchCount ??= this.watchCounts.cell(d.priorityLevel, d.flowSchema)).observe(count),
    epochAdvanced: (level, success) => this.epochAdvances.cell(level, String(success)).value++,
    levelChanged: (level, nowMs) => this.levelChanged(level, nowMs),
    capacityChanged: (maxWaiting, maxExecuting) => {
      const nowMs = this.now();
      const c = this.readWriteCells;
      c.waitingReadOnly.setDenominator(maxWaiting, nowMs);
      c.waitingMutating.setDenominator(maxWaiting, nowMs);
      c.executingReadOnly.setDenominator(maxExecuting, nowMs);
      c.executingMutating.setDenominator(maxExecuting, nowMs);
    },
  };

  /** The families, in registration order. */
  readonly families: readonly CollectedFamily[];

  constructor(options: FlowControlMetricsOptions = {}) {
    this.now = options.now ?? realClock().now;
    this.seatUtilization = new TimingRatioHistogramVec(
      `${NS}priority_level_seat_utilization`,
      "[ALPHA] Time-weighted distribution of the seats in use (lingering ones included) over the level's concurrency limit.",
      ['priority_level'],
      PRIORITY_LEVEL_SEAT_UTILIZATION_BUCKETS,
      this.now,
      { phase: 'executing' },
    );
    this.requestUtilization = new TimingRatioHistogramVec(
      `${NS}priority_level_request_utilization`,
      "[ALPHA] Time-weighted distribution of the requests waiting (over the queues' capacity) and executing (over the concurrency limit).",
      ['phase', 'priority_level'],
      PRIORITY_LEVEL_REQUEST_UTILIZATION_BUCKETS,
      this.now,
    );
    this.demandSeats = new TimingRatioHistogramVec(
      `${NS}demand_seats`,
      '[ALPHA] Time-weighted distribution of the seats a level could use (in use plus waiting) over its concurrency limit.',
      ['priority_level'],
      DEMAND_SEATS_BUCKETS,
      this.now,
    );
    this.readVsWrite = new TimingRatioHistogramVec(
      `${NS}read_vs_write_current_requests`,
      "[ALPHA] Time-weighted distribution of read-only and mutating requests waiting and executing, over all levels' queue capacity and nominal limits.",
      ['phase', 'request_kind'],
      READ_VS_WRITE_BUCKETS,
      this.now,
    );
    this.readWriteCells = {
      waitingReadOnly: this.readVsWrite.cell(['waiting', 'readOnly']),
      waitingMutating: this.readVsWrite.cell(['waiting', 'mutating']),
      executingReadOnly: this.readVsWrite.cell(['executing', 'readOnly']),
      executingMutating: this.readVsWrite.cell(['executing', 'mutating']),
    };
    this.families = [
      this.dispatched.family,
      this.rejected.family,
      this.waitDuration.family,
      this.execution.family,
      this.queueLength.family,
      this.workSeats.family,
      this.noAccommodation.family,
      ...this.gaugeFamilies(options.showHidden === true),
      this.watchCounts.family,
      this.epochAdvances.family,
      this.seatUtilization.family,
      this.requestUtilization.family,
      this.readVsWrite.family,
      this.demandSeats.family,
      this.unenforced.family,
      new CollectedFamily(
        'fairway_flowcontrol_config_digests_total',
        'Times the APF configuration was digested; changes arriving together are digested together.',
        'counter',
        () => (this.controller === undefined ? [] : [{ labels: {}, value: this.controller.configDigests }]),
      ),
    ];
  }

  /** The gauges read from the controller's state at each scrape, in the order they are exposed. */
  private gaugeFamilies(showHidden: boolean): CollectedFamily[] {
    return [
      this.pairGaugeFamily('current_inqueue_requests', '[BETA] Requests waiting in queues now.', (g) => g.inqueueRequests),
      this.pairGaugeFamily('current_inqueue_seats', '[ALPHA] Seats the waiting requests will need.', (g) => g.inqueueSeats),
      this.pairGaugeFamily('current_executing_requests', '[BETA] Requests executing now.', (g) => g.executingRequests),
      this.pairGaugeFamily('current_executing_seats', '[BETA] Seats held by the requests executing now.', (g) => g.executingSeats),
      this.levelGaugeFamily('nominal_limit_seats', "[BETA] NominalCL: the level's share of the server concurrency limit.", (l) => l.limits.nominalCL),
      this.levelGaugeFamily('lower_limit_seats', '[ALPHA] MinCL: NominalCL minus what the level may lend.', (l) => l.limits.minCL),
      this.levelGaugeFamily('upper_limit_seats', '[ALPHA] MaxCL: NominalCL plus what the level may borrow.', (l) => l.limits.maxCL),
      this.levelGaugeFamily('current_limit_seats', '[ALPHA] CurrentCL: the limit enforced now, after borrowing.', (l) => l.currentCL),
      this.levelGaugeFamily('target_seats', '[ALPHA] The seat target the last borrowing adjustment aimed at.', borrowingTarget),
      this.levelGaugeFamily('demand_seats_high_watermark', '[ALPHA] Highest seat demand in the last adjustment period.', (l) => l.demandStats.highWatermark),
      this.levelGaugeFamily('demand_seats_average', '[ALPHA] Time-weighted mean seat demand in the last adjustment period.', (l) => l.demandStats.avg),
      this.levelGaugeFamily('demand_seats_stdev', '[ALPHA] Standard deviation of seat demand in the last adjustment period.', (l) => l.demandStats.stdDev),
      this.levelGaugeFamily('demand_seats_smoothed', '[ALPHA] Smoothed envelope of seat demand used for borrowing.', (l) => l.demandStats.smoothed),
      this.levelGaugeFamily('current_r', "[ALPHA] The level's virtual time R, in seat-seconds.", (l) => seatSecondsToFloat(l.queueSet.currentR)),
      this.dispatchGaugeFamily('dispatch_r', "[ALPHA] R at the level's last dispatch from a queue.", (r) => r.r),
      this.dispatchGaugeFamily('latest_s', '[ALPHA] S (dispatch R) of the request last dispatched from a queue.', (r) => r.s),
      this.dispatchBoundsFamily('next_s_bounds', '[ALPHA] Least and greatest S over the queues with a waiting request, at the last dispatch.', (r) => [
        r.sMin,
        r.sMax,
      ]),
      this.dispatchBoundsFamily(
        'next_discounted_s_bounds',
        '[ALPHA] The same bounds of S less the estimated work in progress (seats in use × 3 ms), at the last dispatch.',
        (r) => [r.discountedSMin, r.discountedSMax],
      ),
      new CollectedFamily(`${NS}seat_fair_frac`, '[ALPHA] The fair fraction of seat demand granted by the last borrowing adjustment.', 'gauge', () =>
        this.controller === undefined ? [] : [{ labels: {}, value: this.controller.seatFairFrac }],
      ),
      ...(showHidden
        ? [
            this.levelGaugeFamily(
              'request_concurrency_limit',
              '[ALPHA] (Deprecated since 1.30.0) NominalCL, as nominal_limit_seats reports it.',
              (l) => l.limits.nominalCL,
            ),
            this.pairGaugeFamily(
              'request_concurrency_in_use',
              '[ALPHA] (Deprecated since 1.31.0) Seats held by the requests executing now, as current_executing_seats reports them.',
              (g) => g.executingSeats,
            ),
          ]
        : []),
    ];
  }

  private levelGaugeFamily(name: string, help: string, value: (level: LevelDump) => number): CollectedFamily {
    return new CollectedFamily(`${NS}${name}`, help, 'gauge', () =>
      (this.snapshot()?.dump.levels ?? []).map((level): Sample => ({ labels: { priority_level: level.name }, value: value(level) })),
    );
  }

  // Kubernetes sets the dispatch readings at a level's first dispatch from a queue; until then they do not exist.
  private dispatchGaugeFamily(name: string, help: string, value: (r: DispatchReadings) => number): CollectedFamily {
    return new CollectedFamily(`${NS}${name}`, help, 'gauge', () =>
      (this.snapshot()?.dump.levels ?? []).flatMap((level): Sample[] => {
        const readings = level.queueSet.dispatch;
        return readings === undefined ? [] : [{ labels: { priority_level: level.name }, value: value(readings) }];
      }),
    );
  }

  private dispatchBoundsFamily(name: string, help: string, value: (r: DispatchReadings) => [number, number]): CollectedFamily {
    return new CollectedFamily(`${NS}${name}`, help, 'gauge', () =>
      (this.snapshot()?.dump.levels ?? []).flatMap((level): Sample[] => {
        const readings = level.queueSet.dispatch;
        if (readings === undefined) return [];
        const [min, max] = value(readings);
        return [
          { labels: { bound: 'min', priority_level: level.name }, value: min },
          { labels: { bound: 'max', priority_level: level.name }, value: max },
        ];
      }),
    );
  }

  private pairGaugeFamily(name: string, help: string, value: (g: PairGauges) => number): CollectedFamily {
    return new CollectedFamily(`${NS}${name}`, help, 'gauge', () =>
      this.pairGauges().map((g): Sample => ({ labels: { flow_schema: g.fs, priority_level: g.pl }, value: value(g) })),
    );
  }

  /** The controller whose state the gauges report; it is built with `observer`, so it comes second. */
  attach(controller: FlowController): void {
    this.controller = controller;
  }

  /** Shadow mode: one request served although its shadow was rejected. */
  countUnenforcedRejection(outcome: AdmitOutcome): void {
    if (outcome.decision.kind !== 'reject') return;
    const d = outcome.request;
    const cells = this.cells(d);
    ((cells.unenforced ??= {})[outcome.decision.reason] ??= this.unenforced.cell(d.priorityLevel, d.flowSchema, outcome.decision.reason)).value++;
  }

  private cells(d: RequestDescriptor): PairCells {
    // Consecutive hooks mostly concern the same request (estimated → queued → dispatched).
    const last = this.lastPair;
    if (last !== undefined && last.pl === d.priorityLevel && last.fs === d.flowSchema) return last.cells;
    let bySchema = this.pairs.get(d.priorityLevel);
    if (bySchema === undefined) {
      bySchema = new Map();
      this.pairs.set(d.priorityLevel, bySchema);
    }
    let cells = bySchema.get(d.flowSchema);
    if (cells === undefined) {
      cells = {};
      bySchema.set(d.flowSchema, cells);
    }
    this.lastPair = { pl: d.priorityLevel, fs: d.flowSchema, cells };
    return cells;
  }

  /** One dump per scrape: every family collects in the same synchronous pass of Registry.metrics(). */
  private snapshot(): { dump: ControllerDump; gauges?: PairGauges[] } | undefined {
    if (this.controller === undefined) return undefined;
    if (this.scrape === undefined) {
      this.scrape = { dump: this.controller.dump() };
      queueMicrotask(() => (this.scrape = undefined));
    }
    return this.scrape;
  }

  private pairGauge(byKey: Map<string, PairGauges>, pl: string, fs: string): PairGauges {
    const key = `${pl}\u0000${fs}`;
    if (!this.seenGaugePairs.has(key)) this.seenGaugePairs.set(key, { pl, fs });
    let g = byKey.get(key);
    if (g === undefined) {
      g = { pl, fs, inqueueRequests: 0, inqueueSeats: 0, executingRequests: 0, executingSeats: 0 };
      byKey.set(key, g);
    }
    return g;
  }

  /** The timing-ratio series of one level follow its counts and denominators. */
  private levelChanged(level: LevelGauges, nowMs: number): void {
    const cells = (level.observed as LevelRatioCells | undefined) ?? (level.observed = this.levelRatioCells(level.priorityLevel));
    const denominator = level.concurrencyDenominator;
    if (denominator !== cells.concurrencyDenominator) {
      cells.concurrencyDenominator = denominator;
      cells.seatUtilization.setDenominator(denominator, nowMs);
      cells.requestsExecuting.setDenominator(denominator, nowMs);
      cells.demand.setDenominator(denominator, nowMs);
    }
    const waitingCapacity = level.waitingCapacity;
    if (waitingCapacity !== cells.waitingCapacity) {
      cells.waitingCapacity = waitingCapacity;
      cells.requestsWaiting.setDenominator(waitingCapacity, nowMs);
    }
    const seatsInUse = level.seatsInUse;
    cells.seatUtilization.set(seatsInUse, nowMs);
    cells.requestsExecuting.set(level.requestsExecuting, nowMs);
    cells.requestsWaiting.set(level.requestsWaiting, nowMs);
    cells.demand.set(seatsInUse + level.seatsWaiting, nowMs);
  }

  /** By name: a level dropped and made again continues its series. */
  private levelRatioCells(name: string): LevelRatioCells {
    let cells = this.levelRatios.get(name);
    if (cells === undefined) {
      // A level's series start at 0 over 1 when the level is made, as upstream's do.
      cells = {
        seatUtilization: this.seatUtilization.cell([name]),
        requestsWaiting: this.requestUtilization.cell(['waiting', name]),
        requestsExecuting: this.requestUtilization.cell(['executing', name]),
        demand: this.demandSeats.cell([name]),
        concurrencyDenominator: 1,
        waitingCapacity: 1,
      };
      this.levelRatios.set(name, cells);
    }
    return cells;
  }

  /** server/filters/priority-and-fairness.go noteWaitingDelta / noteExecutingDelta. */
  private countReadWrite(d: RequestDescriptor, executing: boolean, delta: number, nowMs: number): void {
    const c = this.readWriteCells;
    const readOnly = isReadOnlyVerb(d.digest.requestInfo.verb);
    const cell = executing ? (readOnly ? c.executingReadOnly : c.executingMutating) : readOnly ? c.waitingReadOnly : c.waitingMutating;
    cell.add(delta, nowMs);
  }

  private pairGauges(): PairGauges[] {
    const scrape = this.snapshot();
    if (scrape === undefined) return [];
    if (scrape.gauges !== undefined) return scrape.gauges;
    const byKey = new Map<string, PairGauges>();
    for (const level of scrape.dump.levels) {
      for (const r of level.queueSet.requests) {
        const g = this.pairGauge(byKey, level.name, r.descriptor.flowSchema);
        const seats = maxSeatsOf(r.workEstimate);
        if (r.startMs === undefined) {
          g.inqueueRequests++;
          g.inqueueSeats += seats;
        } else {
          g.executingRequests++;
          g.executingSeats += seats;
        }
      }
      // Seats a finished request still holds for its additional latency are executing seats until
      // released (queueset.go releases them, and the gauge with them, only then).
      for (const l of level.queueSet.lingering) this.pairGauge(byKey, level.name, l.descriptor.flowSchema).executingSeats += l.seats;
    }
    scrape.gauges = [...this.seenGaugePairs].map(
      ([key, { pl, fs }]) => byKey.get(key) ?? { pl, fs, inqueueRequests: 0, inqueueSeats: 0, executingRequests: 0, executingSeats: 0 },
    );
    return scrape.gauges;
  }
}

/**
 * What the last borrowing adjustment aimed at (updateBorrowingLocked): an exempt level its demand
 * high watermark (at least MinCL); a limited one the larger of its smoothed demand and
 * max(MinCL, min(NominalCL, high watermark)).
 */
export function borrowingTarget(level: LevelDump): number {
  const { minCL, nominalCL } = level.limits;
  const highWatermark = level.demandStats.highWatermark;
  if (level.exempt) return Math.max(minCL, highWatermark);
  return Math.max(Math.max(minCL, Math.min(nominalCL, highWatermark)), level.demandStats.smoothed);
}
