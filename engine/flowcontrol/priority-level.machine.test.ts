import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createActor } from 'xstate';
import { SimClock } from '../sim-clock.ts';
import { toXstateClock } from '../clock-adapters.ts';
import { computeLevelLimits } from './concurrency-limits.ts';
import { levelConfigOf } from './level-config.ts';
import { createPriorityLevelMachine, queueActorId } from './priority-level.machine.ts';
import type { PriorityLevelConfiguration } from '../resources/types.ts';

const plc = (queues: number): PriorityLevelConfiguration => ({
  metadata: { name: 'team' },
  spec: {
    type: 'Limited',
    limited: { nominalConcurrencyShares: 10, lendablePercent: 0, limitResponse: { type: 'Queue', queuing: { queues, handSize: 1, queueLengthLimit: 10 } } },
  },
});

function start(queues: number) {
  const clock = new SimClock();
  const config = levelConfigOf(plc(queues));
  const limits = computeLevelLimits(10, [config.limitsInput]).levels[0]!;
  const actor = createActor(createPriorityLevelMachine<string>(), {
    clock: toXstateClock(clock),
    input: { clock, plc: plc(queues), config, limits, maxSeats: 1, observer: { queueRemoved: () => actor.send({ type: 'QUEUES_CHANGED' }) } },
  }).start();
  return { actor, clock, limits };
}

const queueStates = (actor: ReturnType<typeof start>['actor']) =>
  Object.values(actor.getSnapshot().children as Record<string, { getSnapshot(): { value: unknown } }>).map((c) => c.getSnapshot().value);

test('a queue actor per queue while the level has surplus queues; they retire, then go when they empty', () => {
  const { actor, limits } = start(4);
  assert.equal(queueStates(actor), [], 'a level in its steady state needs no queue actors');
  const { queueSet } = actor.getSnapshot().context;
  const decisions: string[] = [];
  const running = queueSet.startRequest(
    { flowHash: 0n, workEstimate: { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, waitLimitMs: 1000, descriptor: 'r' },
    (d) => decisions.push(d.kind),
  );
  actor.send({ type: 'CONFIGURE', plc: plc(2), config: levelConfigOf(plc(2)), limits, maxSeats: 1 });
  // Shrinking removes nothing at once: all four queues retire, and each goes when a request in it ends.
  assert.equal(queueStates(actor), ['retiring', 'retiring', 'retiring', 'retiring']);
  running.finish();
  assert.equal(decisions, ['execute']);
  assert.equal(queueSet.queueIds().length, 3);
  assert.equal(Object.keys(actor.getSnapshot().children).sort(), queueSet.queueIds().map(queueActorId).sort());
  assert.equal(queueStates(actor), ['retiring', 'retiring', 'retiring']);
  actor.send({ type: 'CONFIGURE', plc: plc(4), config: levelConfigOf(plc(4)), limits, maxSeats: 1 });
  assert.equal(queueStates(actor), [], 'grown back to its desired size: the surplus is gone, so are the actors');
  assert.equal(queueSet.queueIds().length, 4);
});

test('a deleted level quiesces while busy and ends when idle', () => {
  const { actor } = start(1);
  const { queueSet } = actor.getSnapshot().context;
  const running = queueSet.startRequest(
    { flowHash: 0n, workEstimate: { initialSeats: 1, finalSeats: 0, additionalLatencyMs: 0 }, waitLimitMs: 1000, descriptor: 'r' },
    () => {},
  );
  actor.send({ type: 'DELETED' });
  assert.is(actor.getSnapshot().value, 'quiescing');
  actor.send({ type: 'IDLE_CHECK' });
  assert.is(actor.getSnapshot().value, 'quiescing');
  running.finish();
  actor.send({ type: 'IDLE_CHECK' });
  assert.is(actor.getSnapshot().status, 'done');
});

test.run();
