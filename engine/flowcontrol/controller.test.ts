import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SimClock } from '../sim-clock.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../resources/defaults.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../resources/bootstrap.ts';
import type { FlowSchema, PriorityLevelConfiguration } from '../resources/types.ts';
import { Subject } from 'rxjs';
import { CONFIG_DIGEST_MIN_INTERVAL_MS } from './config-work-queue.ts';
import { AdmissionRecord, FlowController, type AdmitOutcome, type AdmitRequest, type FlowcontrolConfig } from './controller.ts';
import type { Admission } from './queue-set.ts';
import type { RequestDigest } from './request-digest.ts';

function defaultConfig(): FlowcontrolConfig {
  return {
    priorityLevels: [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map(defaultPriorityLevelConfiguration),
    flowSchemas: [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map(defaultFlowSchema),
  };
}

function newController(serverConcurrencyLimit = 600, clock = new SimClock()) {
  const controller = new FlowController({
    clock,
    serverConcurrencyLimit,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => ({ count: 50 }), watchCount: () => 0 },
  });
  return { controller, clock };
}

const listPods = (user: string, groups = ['system:authenticated'], namespace = 'default'): RequestDigest => ({
  user: { name: user, groups },
  requestInfo: {
    isResourceRequest: true,
    path: `/api/v1/namespaces/${namespace}/pods`,
    verb: 'list',
    apiGroup: '',
    apiVersion: 'v1',
    namespace,
    resource: 'pods',
    subresource: '',
    name: '',
  },
});

function admit(controller: FlowController, digest: RequestDigest) {
  const outcomes: AdmitOutcome[] = [];
  const admission: Admission = controller.admit({ digest, query: {} }, (o) => outcomes.push(o));
  return { outcomes, admission };
}

test('the default configuration at ServerCL 600 gives the reference limits, and idle borrowing hands out MinCL-proportional seats', () => {
  const { controller } = newController();
  controller.configure(defaultConfig());
  const levels = Object.fromEntries(controller.dump().levels.map((l) => [l.name, l]));
  const nominal = Object.fromEntries(Object.entries(levels).map(([n, l]) => [n, l.limits.nominalCL]));
  assert.equal(nominal, {
    'catch-all': 13,
    exempt: 0,
    'global-default': 49,
    'leader-election': 25,
    'node-high': 98,
    system: 74,
    'workload-high': 98,
    'workload-low': 245,
  });
  const current = Object.fromEntries(Object.entries(levels).map(([n, l]) => [n, l.currentCL]));
  assert.equal(current, {
    'catch-all': 30,
    exempt: 0,
    'global-default': 56,
    'leader-election': 58,
    'node-high': 170,
    system: 117,
    'workload-high': 114,
    'workload-low': 56,
  });
  assert.is(levels['workload-low']!.maxSeats, 37);
  assert.is(levels['exempt']!.maxSeats, 0);
});

test('requests are classified and admitted: masters run exempt, alice queues at global-default', () => {
  const { controller } = newController();
  controller.configure(defaultConfig());
  const root = admit(controller, listPods('root', ['system:masters', 'system:authenticated']));
  assert.is(root.outcomes[0]!.classification.priorityLevel.metadata?.name, 'exempt');
  assert.is(root.outcomes[0]!.decision.kind, 'execute');
  const alice = admit(controller, listPods('alice'));
  assert.is(alice.outcomes[0]!.request.priorityLevel, 'global-default');
  assert.is(alice.outcomes[0]!.request.flowDistinguisher, 'alice');
  assert.equal(alice.outcomes[0]!.workEstimate, { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 });
  root.admission.finish();
  alice.admission.finish();
  assert.ok(controller.dump().levels.every((l) => l.queueSet.isIdle));
});

/** A caller whose request is its own record, as the simulator's are. */
class OwnRecord extends AdmissionRecord implements AdmitRequest {
  readonly decisions: string[] = [];
  givenArrivalMs: number | undefined = undefined;

  constructor(public digest: RequestDigest) {
    super();
  }

  get admitted(): this {
    return this;
  }

  get query(): Record<string, string> {
    return {};
  }

  get givenWaitLimitMs(): number | undefined {
    return undefined;
  }

  onDecided(): void {
    this.decisions.push(`${this.id} ${this.priorityLevel} ${this.decision.kind}`);
  }
}

test('admitRecord: a caller-made record is the admission and the outcome, and can be reused once the queue set is done with it', () => {
  const { controller, clock } = newController();
  controller.configure(defaultConfig());
  const record = new OwnRecord(listPods('alice'));
  assert.is(controller.admitRecord(record), record, 'the admission handle is the record');
  assert.equal(record.decisions, ['1 global-default execute']);
  assert.is(record.waitLimitMs, 15_000, 'the default wait limit when the record has none');
  assert.throws(() => record.reuse(), /still holds/, "an executing request is the queue set's");
  clock.advance(5);
  record.finish();
  record.reuse();
  record.digest = listPods('root', ['system:masters', 'system:authenticated']);
  record.givenArrivalMs = clock.now();
  controller.admitRecord(record);
  assert.equal(record.decisions, ['1 global-default execute', '2 exempt execute'], 'reclassified, a new id, one more outcome');
  assert.is(record.arrivalMs, 5);
  assert.throws(() => controller.admitRecord(record), /started once/, 'a record in the engine is not started again');
  record.finish();
  assert.ok(controller.dump().levels.every((l) => l.queueSet.isIdle));
});

// Admit uses the caller's arrival reading, finish reads the clock once, every hook of an event
// gets that reading, and a finish changes the level's gauges once.
test('one clock reading per event, one gauge update per finish', () => {
  let readings = 0;
  class CountingClock extends SimClock {
    override now(): number {
      readings++;
      return super.now();
    }
  }
  const clock = new CountingClock();
  const seen: string[] = [];
  const controller = new FlowController({
    clock,
    serverConcurrencyLimit: 600,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => ({ count: 50 }), watchCount: () => 0 },
    observer: {
      queued: (d, _length, nowMs) => seen.push(`queued ${d.priorityLevel} ${nowMs}`),
      dispatched: (d, _wait, _fromQueue, nowMs) => seen.push(`dispatched ${d.priorityLevel} ${nowMs}`),
      finished: (d, executionMs, nowMs) => seen.push(`finished ${d.priorityLevel} ${executionMs} ${nowMs}`),
      levelChanged: (level, nowMs) => seen.push(`gauges ${level.priorityLevel} ${nowMs}`),
    },
  });
  controller.configure(defaultConfig());
  clock.advance(1_000);
  for (const [user, groups] of [
    ['root', ['system:masters', 'system:authenticated']],
    ['alice', ['system:authenticated']],
  ] as const) {
    seen.length = 0;
    const arrivalMs = clock.now();
    readings = 0;
    let outcome: AdmitOutcome | undefined;
    const admission = controller.admit({ digest: listPods(user, [...groups]), query: {}, arrivalMs }, (o) => (outcome = o));
    assert.is(readings, 0, `${user}: admit read the clock`);
    assert.ok(seen.includes(`dispatched ${outcome!.request.priorityLevel} ${arrivalMs}`), seen.join('; '));
    assert.is(outcome?.request.arrivalMs, arrivalMs);
    clock.advance(7);
    readings = 0;
    seen.length = 0;
    admission.finish();
    assert.is(readings, 1, `${user}: finish read the clock ${readings} times`);
    const level = outcome!.request.priorityLevel;
    assert.ok(seen.includes(`finished ${level} 7 ${arrivalMs + 7}`), seen.join('; '));
    // The request's end and its seats' release are one event: the level's gauges change once.
    assert.equal(
      seen.filter((s) => s.startsWith('gauges')),
      [`gauges ${level} ${arrivalMs + 7}`],
    );
    clock.advance(1_000 - 7);
  }
});

test('a flood of one flow fills its queue and is rejected with queue-full and a growing Retry-After, while exempt traffic runs', () => {
  const { controller, clock } = newController(60);
  controller.configure(defaultConfig());
  const flood = Array.from({ length: 400 }, () => admit(controller, listPods('mallory')));
  const rejected = flood.filter((f) => f.outcomes[0]?.decision.kind === 'reject');
  assert.ok(rejected.length > 0, 'some flood requests were rejected');
  assert.ok(rejected.every((f) => f.outcomes[0]!.decision.kind === 'reject' && (f.outcomes[0]!.decision as { reason: string }).reason === 'queue-full'));
  assert.ok(rejected.some((f) => f.outcomes[0]!.retryAfterSeconds >= 1));
  const root = admit(controller, listPods('root', ['system:masters']));
  assert.is(root.outcomes[0]!.decision.kind, 'execute');
  // The waiting flood times out after the wait limit.
  clock.advance(15_000);
  const timedOut = flood.filter((f) => f.outcomes[0]?.decision.kind === 'reject' && (f.outcomes[0].decision as { reason: string }).reason === 'time-out');
  assert.ok(timedOut.length > 0, 'queued requests timed out');
  assert.ok(
    flood.every((f) => f.outcomes.length === 1),
    'every request got exactly one outcome',
  );
});

test('a deleted level quiesces until its last request finishes, then is removed', () => {
  const { controller, clock } = newController();
  const config = defaultConfig();
  controller.configure(config);
  const pending = admit(controller, listPods('alice'));
  assert.is(pending.outcomes[0]!.decision.kind, 'execute');
  const without = {
    priorityLevels: config.priorityLevels.filter((p) => p.metadata?.name !== 'global-default'),
    flowSchemas: config.flowSchemas.filter((f) => f.metadata?.name !== 'global-default'),
  };
  controller.configure(without);
  const level = () => controller.dump().levels.find((l) => l.name === 'global-default');
  assert.is(level()?.state, 'quiescing');
  assert.ok(level()!.limits.nominalCL > 0, 'a quiescing level keeps its share');
  // New requests from alice now go to catch-all.
  const next = admit(controller, listPods('alice'));
  assert.is(next.outcomes[0]!.request.priorityLevel, 'catch-all');
  pending.admission.finish();
  assert.is(level()?.state, 'removed', 'idle: the actor is done, and a digest is due');
  clock.advance(0);
  assert.is(level(), undefined, 'the digest dropped it');
  next.admission.finish();
});

// apf_controller.go: maybeReap adds the config key to the work queue when a quiescing level goes
// idle, and the digest that drops the level recomputes everyone's NominalCL without its shares.
test('reaping a deleted level re-digests: the others get its share back (global-default 25 -> 49)', () => {
  const { controller, clock } = newController();
  const config = defaultConfig();
  const extra = defaultPriorityLevelConfiguration({
    metadata: { name: 'extra', uid: 'uid-extra' },
    spec: {
      type: 'Limited',
      limited: { nominalConcurrencyShares: 245, limitResponse: { type: 'Queue', queuing: { queues: 1, handSize: 1, queueLengthLimit: 10 } } },
    },
  });
  const toExtra = defaultFlowSchema({
    metadata: { name: 'to-extra' },
    spec: {
      priorityLevelConfiguration: { name: 'extra' },
      matchingPrecedence: 50,
      rules: [
        { subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] },
      ],
    },
  });
  controller.configure({ priorityLevels: [...config.priorityLevels, extra], flowSchemas: [...config.flowSchemas, toExtra] });
  const nominal = (name: string) => controller.dump().levels.find((l) => l.name === name)?.limits.nominalCL;
  assert.is(nominal('global-default'), 25, 'ceil(600 * 20 / 490)');
  const busy = admit(controller, listPods('bob'));
  assert.is(busy.outcomes[0]!.request.priorityLevel, 'extra');
  controller.configure(config);
  assert.is(nominal('global-default'), 25, 'the quiescing level still holds its share');
  busy.admission.finish();
  clock.advance(0);
  assert.is(nominal('extra'), undefined);
  assert.is(nominal('global-default'), 49, 'ceil(600 * 20 / 245) once the level is gone');
});

// apf_controller.go finishQueueSetReconfigsLocked calls MaxSeatsTracker.SetMaxSeats only for a
// level with queuing, so a level switched from Queue to Reject keeps the value its queuing gave it.
test('a level switched from Queue to Reject keeps its queuing-derived maxSeats', () => {
  const { controller } = newController();
  const config = defaultConfig();
  controller.configure(config);
  const maxSeats = () => controller.dump().levels.find((l) => l.name === 'global-default')!.maxSeats;
  assert.is(maxSeats(), 8);
  const rejecting = config.priorityLevels.map((p) =>
    p.metadata?.name === 'global-default'
      ? { ...p, spec: { type: 'Limited' as const, limited: { ...p.spec!.limited!, limitResponse: { type: 'Reject' as const } } } }
      : p,
  );
  controller.configure({ ...config, priorityLevels: rejecting });
  assert.is(maxSeats(), 8, 'not reset to 0 (which the estimator reads as 10)');
  const newReject = defaultPriorityLevelConfiguration({
    metadata: { name: 'fresh' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 20, limitResponse: { type: 'Reject' } } },
  });
  controller.configure({ ...config, priorityLevels: [...rejecting, newReject] });
  assert.is(controller.dump().levels.find((l) => l.name === 'fresh')!.maxSeats, 0, 'a level that never queued has none');
});

// server/filters/priority-and-fairness.go keeps one DroppedRequestsTracker for the server's life:
// a priority level's Retry-After history survives the level's removal and return.
test('Retry-After history survives a level being removed and created again', () => {
  const { controller, clock } = newController();
  const config = defaultConfig();
  const jail = defaultPriorityLevelConfiguration({
    metadata: { name: 'jail' },
    spec: { type: 'Limited', limited: { nominalConcurrencyShares: 1, limitResponse: { type: 'Reject' } } },
  });
  const toJail = defaultFlowSchema({
    metadata: { name: 'to-jail' },
    spec: {
      priorityLevelConfiguration: { name: 'jail' },
      matchingPrecedence: 50,
      rules: [
        { subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] },
      ],
    },
  });
  const withJail = { priorityLevels: [...config.priorityLevels, jail], flowSchemas: [...config.flowSchemas, toJail] };
  controller.configure(withJail);
  const held: ReturnType<typeof admit>[] = [];
  const flood = () => {
    for (let i = 0; i < 40; i++) held.push(admit(controller, listPods('bob')));
  };
  const retryAfter = () => held.at(-1)!.outcomes[0]!.retryAfterSeconds;
  flood();
  clock.advance(1000);
  flood();
  assert.is(retryAfter(), 2, 'dropped_requests_tracker: a second of drops doubles Retry-After');
  for (const h of held) if (h.outcomes[0]?.decision.kind === 'execute') h.admission.finish();
  held.length = 0;
  controller.configure(config);
  assert.not.ok(
    controller.dump().levels.some((l) => l.name === 'jail'),
    'the idle level was dropped',
  );
  controller.configure(withJail);
  flood();
  assert.is(retryAfter(), 2, 'the history was kept, not restarted at 1');
});

// apf_controller.go: informer events add one key to a rate-limited work queue and the worker
// digests everything it lists, so a burst is digested a few times and ends in the state a fresh
// digest of the final objects gives.
test('a burst of configuration changes is digested a few times a second and ends where a fresh digest of the same objects does', () => {
  const clock = new SimClock(0);
  const { controller } = newController(600, clock);
  const config$ = new Subject<FlowcontrolConfig>();
  controller.start(config$);
  const base = defaultConfig();
  const levels = new Map(base.priorityLevels.map((p) => [p.metadata!.name!, p]));
  const schemas = new Map(base.flowSchemas.map((f) => [f.metadata!.name!, f]));
  const emit = () => config$.next({ priorityLevels: [...levels.values()], flowSchemas: [...schemas.values()] });
  const digestsBefore = controller.configDigests;
  const burstMs = 3000;
  for (let i = 0; i < 1500; i++) {
    const name = `team-${i}`;
    if (i % 2 === 0) {
      levels.set(
        name,
        defaultPriorityLevelConfiguration({
          metadata: { name, uid: `uid-${name}` },
          spec: {
            type: 'Limited',
            limited: {
              nominalConcurrencyShares: 1 + (i % 40),
              lendablePercent: i % 100,
              limitResponse: i % 6 === 0 ? { type: 'Reject' } : { type: 'Queue', queuing: { queues: 1 + (i % 16), handSize: 1, queueLengthLimit: 10 } },
            },
          },
        }),
      );
    } else {
      schemas.set(
        name,
        defaultFlowSchema({
          metadata: { name, uid: `uid-fs-${name}` },
          spec: { priorityLevelConfiguration: { name: `team-${i - 1 - (i % 4 === 1 ? 0 : 2)}` }, matchingPrecedence: 100 + (i % 900), rules: [] },
        }),
      );
    }
    if (i % 97 === 0 && i > 0) levels.delete(`team-${i - 10}`); // some levels go again
    if (i % 89 === 0)
      levels.set('global-default', {
        ...levels.get('global-default')!,
        spec: { ...levels.get('global-default')!.spec, limited: { ...levels.get('global-default')!.spec!.limited!, nominalConcurrencyShares: 20 + (i % 7) } },
      });
    emit();
    clock.advance(burstMs / 1500);
  }
  clock.advance(1000);
  const digests = controller.configDigests - digestsBefore;
  assert.ok(digests <= burstMs / CONFIG_DIGEST_MIN_INTERVAL_MS + 2, `${digests} digests for 1500 changes in ${burstMs} ms`);

  const fresh = newController(600, clock).controller;
  fresh.configure({ priorityLevels: [...levels.values()], flowSchemas: [...schemas.values()] });
  const state = (c: FlowController) => {
    const d = c.dump();
    return {
      flowSchemas: d.flowSchemas,
      dangling: d.danglingFlowSchemas,
      levels: d.levels.map((l) => ({
        name: l.name,
        uid: l.uid,
        state: l.state,
        limits: l.limits,
        currentCL: l.currentCL,
        maxSeats: l.maxSeats,
        queues: l.queueSet.queues.length,
        limit: l.queueSet.concurrencyLimit,
      })),
    };
  };
  assert.equal(state(controller), state(fresh));
  controller.stop();
  fresh.stop();
});

test('a busy level borrows seats an idle level lends, over a few adjustment periods', () => {
  const { controller, clock } = newController(100);
  const limited = (name: string, lendablePercent: number): PriorityLevelConfiguration =>
    defaultPriorityLevelConfiguration({
      metadata: { name, uid: `uid-${name}` },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: 50,
          lendablePercent,
          limitResponse: { type: 'Queue', queuing: { queues: 16, handSize: 4, queueLengthLimit: 1000 } },
        },
      },
    });
  const routeUser = (user: string, level: string, precedence: number): FlowSchema =>
    defaultFlowSchema({
      metadata: { name: `fs-${user}` },
      spec: {
        priorityLevelConfiguration: { name: level },
        matchingPrecedence: precedence,
        distinguisherMethod: { type: 'ByUser' },
        rules: [
          { subjects: [{ kind: 'User', user: { name: user } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] },
        ],
      },
    });
  controller.configure({ priorityLevels: [limited('busy', 0), limited('idle', 90)], flowSchemas: [routeUser('bob', 'busy', 100)] });
  controller.start();
  const nominalBusy = controller.dump().levels.find((l) => l.name === 'busy')!.limits.nominalCL;
  // Keep 'busy' saturated: every 100 ms, finish what runs and top the backlog back up.
  let running: { admission: Admission; outcomes: AdmitOutcome[] }[] = [];
  for (let t = 0; t < 300; t++) {
    while (running.length < 400) running.push(admit(controller, listPods('bob')));
    clock.advance(100);
    const done = running.filter((r) => r.outcomes[0]?.decision.kind === 'execute');
    for (const r of done) r.admission.finish();
    running = running.filter((r) => !done.includes(r) && r.outcomes.length === 0);
  }
  const busy = controller.dump().levels.find((l) => l.name === 'busy')!;
  assert.ok(busy.currentCL > nominalBusy, `busy borrowed: currentCL ${busy.currentCL} > nominal ${nominalBusy}`);
  assert.ok(busy.currentCL <= busy.limits.maxCL);
  controller.stop();
});

test("a level's queue set has a row per configured queue (queues are rows, not actors)", () => {
  const { controller } = newController();
  controller.configure(defaultConfig());
  const level = controller.dump().levels.find((l) => l.name === 'workload-low')!;
  assert.is(level.queueSet.queues.length, 128);
});

test('same configuration and arrivals give the same dump, byte for byte', () => {
  const run = () => {
    const { controller, clock } = newController(40);
    controller.configure(defaultConfig());
    controller.start();
    const live: ReturnType<typeof admit>[] = [];
    for (let i = 0; i < 200; i++) {
      live.push(admit(controller, listPods(`user-${i % 7}`)));
      clock.advance(3);
      if (i % 3 === 0) {
        const first = live.find((l) => l.outcomes[0]?.decision.kind === 'execute');
        if (first) {
          first.admission.finish();
          live.splice(live.indexOf(first), 1);
        }
      }
    }
    clock.advance(20_000);
    const dump = controller.dump();
    controller.stop();
    return JSON.stringify(dump, (_k, v) => (typeof v === 'bigint' ? v.toString() : v));
  };
  assert.is(run(), run());
});

// The classifier and the controller remember their last answer for a frozen RequestInfo and one
// UserInfo object (as the server hands them out): every digest must still send that pair to the level
// the new configuration names, never to the object or queue set remembered from before.
test('a remembered target and user follow every digest: a replaced level object, a schema moved, a level removed and made again', () => {
  const { controller } = newController();
  const base = defaultConfig();
  const level = (name: string, uid: string, shares: number) =>
    defaultPriorityLevelConfiguration({
      metadata: { name, uid },
      spec: { type: 'Limited', limited: { nominalConcurrencyShares: shares, limitResponse: { type: 'Reject' } } },
    });
  const schemaTo = (levelName: string) =>
    defaultFlowSchema({
      metadata: { name: 'bobs', uid: `bobs-to-${levelName}` },
      spec: {
        priorityLevelConfiguration: { name: levelName },
        matchingPrecedence: 50,
        rules: [
          { subjects: [{ kind: 'User', user: { name: 'bob' } }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'] }] },
        ],
      },
    });
  const user = Object.freeze({ name: 'bob', groups: Object.freeze(['system:authenticated']) as string[] });
  const requestInfo = Object.freeze({ ...listPods('bob').requestInfo });
  const configure = (levels: PriorityLevelConfiguration[], schema: FlowSchema) =>
    controller.configure({ priorityLevels: [...base.priorityLevels, ...levels], flowSchemas: [...base.flowSchemas, schema] });
  /** Two requests in a row (the second answered from the memos), each a fresh digest of the same pair; the level and UID each reached. */
  const twice = () =>
    [0, 1].map(() => {
      const { outcomes, admission } = admit(controller, { requestInfo, user });
      const outcome = outcomes[0]!;
      const executing = controller.dump().levels.find((l) => l.name === outcome.classification.priorityLevelName)!.queueSet.executingRequests;
      admission.finish();
      return `${outcome.classification.priorityLevelName}/${outcome.classification.priorityLevel.metadata?.uid}/${outcome.decision.kind}/${executing}`;
    });
  const blue1 = level('blue', 'blue-1', 10);
  const green = level('green', 'green-1', 10);
  configure([blue1, green], schemaTo('blue'));
  assert.equal(twice(), ['blue/blue-1/execute/1', 'blue/blue-1/execute/1']);
  configure([level('blue', 'blue-2', 20), green], schemaTo('blue'));
  assert.equal(twice(), ['blue/blue-2/execute/1', 'blue/blue-2/execute/1'], 'the replaced level object');
  // Dropped and made again with nothing admitted between: the controller's memo still names the old level.
  configure([green], schemaTo('green'));
  assert.not.ok(
    controller.dump().levels.some((l) => l.name === 'blue'),
    'the idle level was dropped',
  );
  configure([blue1, green], schemaTo('blue'));
  assert.equal(twice(), ['blue/blue-1/execute/1', 'blue/blue-1/execute/1'], 'the level made again');
  assert.is(controller.dump().levels.find((l) => l.name === 'blue')!.queueSet.dispatched, 2, 'the new queue set counted both requests');
  configure([blue1, green], schemaTo('green'));
  assert.equal(twice(), ['green/green-1/execute/1', 'green/green-1/execute/1'], 'the schema moved to another level');
});

test.run();
