// The `apiserver_flowcontrol_*` families (apf-semantics 9.4) that Fairway produces.
//
// Two sources:
// - events, through the controller's FlowControlObserver (dispatches, rejections, waits,
//   execution times, queue lengths, seat estimates): each hook finds the (level, schema) pair's
//   cells once and adds to them, so the per-request cost stays a few map lookups;
// - state, read from one `controller.dump()` per scrape (limits, demand statistics, requests in
//   queue and executing, R), so the hot path pays nothing for gauges.
//
// Per-(level, schema) gauges keep reporting 0 for a pair once seen, as Kubernetes' gauge vectors
// do, instead of vanishing when the pair goes idle.

import type { AdmitOutcome, ControllerDump, FlowControlObserver, FlowController, LevelDump, RequestDescriptor } from '../../engine/flowcontrol/controller.ts';
import type { RejectReason } from '../../engine/flowcontrol/queue-set.ts';
import { seatSecondsToFloat } from '../../engine/flowcontrol/seat-seconds.ts';
import { maxSeatsOf } from '../../engine/flowcontrol/work-estimate.ts';
import { QUEUE_LENGTH_BUCKETS, QUEUE_WAIT_AND_EXECUTION_BUCKETS_SECONDS, WORK_ESTIMATED_SEATS_BUCKETS } from './buckets.ts';
import { CollectedFamily, CounterVec, HistogramVec, type CounterCell, type HistogramCell, type Sample } from './metric-family.ts';

const NS = 'apiserver_flowcontrol_';
const PAIR = ['priority_level', 'flow_schema'] as const;

interface PairCells {
  dispatched?: CounterCell;
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

export class FlowControlMetrics {
  private controller: FlowController | undefined;
  private readonly pairs = new Map<string, Map<string, PairCells>>();
  private lastPair: { pl: string; fs: string; cells: PairCells } | undefined;
  private readonly seenGaugePairs = new Map<string, { pl: string; fs: string }>();
  private scrape: { dump: ControllerDump; gauges?: PairGauges[] } | undefined;

  private readonly dispatched = new CounterVec(`${NS}dispatched_requests_total`, '[BETA] Requests that API Priority and Fairness started executing.', PAIR);
  private readonly rejected = new CounterVec(`${NS}rejected_requests_total`, '[BETA] Requests that API Priority and Fairness rejected, by reason.', [...PAIR, 'reason']);
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
  private readonly queueLength = new HistogramVec(`${NS}request_queue_length_after_enqueue`, '[ALPHA] Length of the queue a request joined, itself included.', PAIR, QUEUE_LENGTH_BUCKETS);
  private readonly workSeats = new HistogramVec(`${NS}work_estimated_seats`, '[ALPHA] Seats estimated for a request (the larger of initial and final).', PAIR, WORK_ESTIMATED_SEATS_BUCKETS);
  private readonly noAccommodation = new CounterVec(
    `${NS}request_dispatch_no_accommodation_total`,
    '[ALPHA] Dispatch attempts that stopped because the chosen request did not fit in the free seats.',
    PAIR,
  );

  /** Feed this to `new FlowController({observer})`. */
  readonly observer: FlowControlObserver = {
    estimated: (d, estimate) => (this.cells(d).seats ??= this.workSeats.cell(d.priorityLevel, d.flowSchema)).observe(maxSeatsOf(estimate)),
    queued: (d, length) => (this.cells(d).queueLength ??= this.queueLength.cell(d.priorityLevel, d.flowSchema)).observe(length),
    dispatched: (d, waitMs) => {
      const cells = this.cells(d);
      (cells.dispatched ??= this.dispatched.cell(d.priorityLevel, d.flowSchema)).value++;
      if (!d.exempt) {
        (cells.waitExecuted ??= this.waitDuration.cell(d.priorityLevel, d.flowSchema, 'true')).observe(waitMs / 1000);
      }
    },
    rejected: (d, reason, waitMs) => {
      const cells = this.cells(d);
      ((cells.rejected ??= {})[reason] ??= this.rejected.cell(d.priorityLevel, d.flowSchema, reason)).value++;
      if (!d.exempt) {
        (cells.waitRejected ??= this.waitDuration.cell(d.priorityLevel, d.flowSchema, 'false')).observe(waitMs / 1000);
      }
    },
    finished: (d, executionMs) => {
      const cells = this.cells(d);
      const cell =
        d.digest.requestInfo.verb === 'watch'
          ? (cells.executionWatch ??= this.execution.cell(d.priorityLevel, d.flowSchema, 'watch'))
          : (cells.executionRegular ??= this.execution.cell(d.priorityLevel, d.flowSchema, 'regular'));
      cell.observe(executionMs / 1000);
    },
    noAccommodation: (d) => (this.cells(d).noAccommodation ??= this.noAccommodation.cell(d.priorityLevel, d.flowSchema)).value++,
  };

  /** The families, in registration order. */
  readonly families: readonly CollectedFamily[];

  constructor() {
    const perLevel = (name: string, help: string, value: (level: LevelDump) => number) =>
      new CollectedFamily(`${NS}${name}`, help, 'gauge', () =>
        (this.snapshot()?.dump.levels ?? []).map((level): Sample => ({ labels: { priority_level: level.name }, value: value(level) })),
      );
    const perPair = (name: string, help: string, value: (g: PairGauges) => number) =>
      new CollectedFamily(`${NS}${name}`, help, 'gauge', () =>
        this.pairGauges().map((g): Sample => ({ labels: { flow_schema: g.fs, priority_level: g.pl }, value: value(g) })),
      );
    this.families = [
      this.dispatched.family,
      this.rejected.family,
      this.waitDuration.family,
      this.execution.family,
      this.queueLength.family,
      this.workSeats.family,
      this.noAccommodation.family,
      perPair('current_inqueue_requests', '[BETA] Requests waiting in queues now.', (g) => g.inqueueRequests),
      perPair('current_inqueue_seats', '[ALPHA] Seats the waiting requests will need.', (g) => g.inqueueSeats),
      perPair('current_executing_requests', '[BETA] Requests executing now.', (g) => g.executingRequests),
      perPair('current_executing_seats', '[BETA] Seats held by the requests executing now.', (g) => g.executingSeats),
      perLevel('nominal_limit_seats', '[BETA] NominalCL: the level\'s share of the server concurrency limit.', (l) => l.limits.nominalCL),
      perLevel('lower_limit_seats', '[ALPHA] MinCL: NominalCL minus what the level may lend.', (l) => l.limits.minCL),
      perLevel('upper_limit_seats', '[ALPHA] MaxCL: NominalCL plus what the level may borrow.', (l) => l.limits.maxCL),
      perLevel('current_limit_seats', '[ALPHA] CurrentCL: the limit enforced now, after borrowing.', (l) => l.currentCL),
      perLevel('request_concurrency_limit', '[ALPHA] (Deprecated since 1.30.0) Same as nominal_limit_seats.', (l) => l.limits.nominalCL),
      perLevel('target_seats', '[ALPHA] The seat target the last borrowing adjustment aimed at.', borrowingTarget),
      perLevel('demand_seats_high_watermark', '[ALPHA] Highest seat demand in the last adjustment period.', (l) => l.demandStats.highWatermark),
      perLevel('demand_seats_average', '[ALPHA] Time-weighted mean seat demand in the last adjustment period.', (l) => l.demandStats.avg),
      perLevel('demand_seats_stdev', '[ALPHA] Standard deviation of seat demand in the last adjustment period.', (l) => l.demandStats.stdDev),
      perLevel('demand_seats_smoothed', '[ALPHA] Smoothed envelope of seat demand used for borrowing.', (l) => l.demandStats.smoothed),
      perLevel('current_r', '[ALPHA] The level\'s virtual time R, in seat-seconds.', (l) => seatSecondsToFloat(l.queueSet.currentR)),
      new CollectedFamily(`${NS}seat_fair_frac`, '[ALPHA] The fair fraction of seat demand granted by the last borrowing adjustment.', 'gauge', () =>
        this.controller === undefined ? [] : [{ labels: {}, value: this.controller.seatFairFrac }],
      ),
      this.unenforced.family,
      new CollectedFamily('fairway_flowcontrol_config_digests_total', 'Times the APF configuration was digested; changes arriving together are digested together.', 'counter', () =>
        this.controller === undefined ? [] : [{ labels: {}, value: this.controller.configDigests }],
      ),
    ];
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

  private pairGauges(): PairGauges[] {
    const scrape = this.snapshot();
    if (scrape === undefined) return [];
    if (scrape.gauges !== undefined) return scrape.gauges;
    const byKey = new Map<string, PairGauges>();
    for (const level of scrape.dump.levels) {
      for (const r of level.queueSet.requests) {
        const pl = level.name;
        const fs = r.descriptor.flowSchema;
        const key = `${pl}\u0000${fs}`;
        if (!this.seenGaugePairs.has(key)) this.seenGaugePairs.set(key, { pl, fs });
        let g = byKey.get(key);
        if (g === undefined) {
          g = { pl, fs, inqueueRequests: 0, inqueueSeats: 0, executingRequests: 0, executingSeats: 0 };
          byKey.set(key, g);
        }
        const seats = maxSeatsOf(r.workEstimate);
        if (r.startMs === undefined) {
          g.inqueueRequests++;
          g.inqueueSeats += seats;
        } else {
          g.executingRequests++;
          g.executingSeats += seats;
        }
      }
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
