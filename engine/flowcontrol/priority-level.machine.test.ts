import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor, type AnyStateNode } from 'xstate';
import { SimClock } from '../sim-clock.ts';
import { computeLevelLimits } from './concurrency-limits.ts';
import { levelConfigOf } from './level-config.ts';
import { createPriorityLevelMachine } from './priority-level.machine.ts';
import type { PriorityLevelConfiguration } from '../resources/types.ts';

const ONE_SEAT = { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 };

const plc = (queues: number): PriorityLevelConfiguration => ({
  metadata: { name: 'team' },
  spec: {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues, handSize: 1, queueLengthLimit: 10 } } },
  },
});

function start(queues: number, serverCL = 10) {
  const clock = new SimClock();
  const config = levelConfigOf(plc(queues));
  const limits = computeLevelLimits(serverCL, [config.limitsInput]).levels[0]!;
  const actor = createActor(createPriorityLevelMachine<string>(), {
    input: { clock, plc: plc(queues), config, limits, maxSeats: 1, observer: {} },
  }).start();
  return { actor, clock, limits };
}

test('BORROWED is a new context with the new CurrentCL, applied to the queue set in the same transition', () => {
  const { actor } = start(1, 1);
  const before = actor.getSnapshot().context;
  const { queueSet } = before;
  const decisions: string[] = [];
  const decide = (d: { kind: string }, r: { descriptor: string }) => decisions.push(`${r.descriptor}:${d.kind}`);
  queueSet.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 1000, descriptor: 'a' }, decide);
  queueSet.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 1000, descriptor: 'b' }, decide);
  assert.equal(decisions, ['a:execute']);
  actor.send({ type: 'BORROWED', currentCL: 2 });
  const after = actor.getSnapshot().context;
  assert.equal(decisions, ['a:execute', 'b:execute'], 'the raised limit dispatched the waiting request');
  assert.is(after.currentCL, 2);
  assert.is(queueSet.limit, 2);
  assert.is(before.currentCL, 1, 'the previous context is not written in place');
  assert.is(after.queueSet, queueSet, 'the hot-path structure stays the same object');
});

test('LIMITS replaces the limits and maxSeats without touching the queue set; CONFIGURE applies the queuing', () => {
  const { actor, limits } = start(4);
  const before = actor.getSnapshot().context;
  const wider = { ...limits, nominalCL: limits.nominalCL + 5 };
  actor.send({ type: 'LIMITS', limits: wider, maxSeats: 3 });
  const after = actor.getSnapshot().context;
  assert.equal([after.limits, after.maxSeats], [wider, 3]);
  assert.equal([before.limits, before.maxSeats], [limits, 1]);
  assert.is(after.queueSet.queueCount, 4);
  actor.send({ type: 'CONFIGURE', plc: plc(6), config: levelConfigOf(plc(6)), limits, maxSeats: 2 });
  assert.is(actor.getSnapshot().context.queueSet.queueCount, 6);
  assert.is(actor.getSnapshot().context.maxSeats, 2);
  assert.is(after.config.queuing.desiredNumQueues, 4);
});

test('a deleted level quiesces while busy and ends when idle; CONFIGURE brings a quiescing level back', () => {
  const { actor, limits } = start(1);
  const { queueSet } = actor.getSnapshot().context;
  const running = queueSet.startRequest({ flowHash: 0n, workEstimate: ONE_SEAT, waitLimitMs: 1000, descriptor: 'r' }, () => {});
  actor.send({ type: 'DELETED' });
  assert.is(actor.getSnapshot().value, 'quiescing');
  actor.send({ type: 'CONFIGURE', plc: plc(1), config: levelConfigOf(plc(1)), limits, maxSeats: 1 });
  assert.is(actor.getSnapshot().value, 'active');
  actor.send({ type: 'DELETED' });
  actor.send({ type: 'IDLE_CHECK' });
  assert.is(actor.getSnapshot().value, 'quiescing');
  running.finish();
  actor.send({ type: 'IDLE_CHECK' });
  assert.is(actor.getSnapshot().status, 'done');
});

test('no delayed transition: the actor is made without an xstate clock, so one would run on the wall clock', () => {
  const nodes = (node: AnyStateNode): AnyStateNode[] => [node, ...Object.values(node.states).flatMap(nodes)];
  const all = nodes(createPriorityLevelMachine<string>().root);
  assert.equal(
    all.map((node) => node.id),
    ['priority-level', 'priority-level.active', 'priority-level.quiescing', 'priority-level.removed'],
  );
  assert.equal(
    all.filter((node) => node.after.length > 0).map((node) => node.id),
    [],
  );
});

test.run();
