// Flow-control hot path: the cost of admit + finish per request through the real controller, and
// a design question: could each request be an xstate event instead of a direct call
// on the level's queue set? Both paths run in this process, on a virtual clock, same requests.
//
//   node --import tsx bench/flowcontrol.bench.ts
import { createActor, setup } from 'xstate';
import { SimClock } from '../engine/sim-clock.ts';
import { FlowController } from '../engine/flowcontrol/controller.ts';
import { defaultFlowSchema, defaultPriorityLevelConfiguration } from '../engine/resources/defaults.ts';
import { mandatoryFlowSchemas, mandatoryPriorityLevels, suggestedFlowSchemas, suggestedPriorityLevels } from '../engine/resources/bootstrap.ts';
import type { RequestDigest } from '../engine/flowcontrol/request-digest.ts';

const N = 200_000;

function controller() {
  const clock = new SimClock();
  const c = new FlowController({
    clock,
    serverConcurrencyLimit: 600,
    defaultWaitLimitMs: 15_000,
    estimator: { objectCount: () => ({ count: 50 }), watchCount: () => 0 },
  });
  c.configure({
    priorityLevels: [...mandatoryPriorityLevels(), ...suggestedPriorityLevels()].map(defaultPriorityLevelConfiguration),
    flowSchemas: [...mandatoryFlowSchemas(), ...suggestedFlowSchemas()].map(defaultFlowSchema),
  });
  return c;
}

const digest = (user: string, groups: string[]): RequestDigest => ({
  user: { name: user, groups },
  requestInfo: {
    isResourceRequest: true,
    path: '/api/v1/namespaces/a/pods',
    verb: 'get',
    apiGroup: '',
    apiVersion: 'v1',
    namespace: 'a',
    resource: 'pods',
    subresource: '',
    name: 'p',
  },
});

function timeIt(label: string, fn: () => void): number {
  fn(); // warm-up pass
  const start = process.hrtime.bigint();
  fn();
  const us = Number(process.hrtime.bigint() - start) / 1000 / N;
  console.log(`${label.padEnd(58)} ${us.toFixed(2)} µs/request`);
  return us;
}

const limited = controller();
const alice = digest('alice', ['system:authenticated']);
const direct = timeIt('admit + finish, limited level (global-default), direct call', () => {
  for (let i = 0; i < N; i++) {
    const admission = limited.admit({ digest: alice, query: {} }, () => {});
    admission.finish();
  }
});

const exemptController = controller();
const root = digest('root', ['system:masters']);
timeIt('admit + finish, exempt level, direct call', () => {
  for (let i = 0; i < N; i++) exemptController.admit({ digest: root, query: {} }, () => {}).finish();
});

// The alternative: each request becomes an actor event whose action makes the same call.
const viaActor = controller();
const machine = setup({
  types: { events: {} as { type: 'ADMIT' } },
  actions: {
    admit: () => {
      viaActor.admit({ digest: alice, query: {} }, () => {}).finish();
    },
  },
}).createMachine({ on: { ADMIT: { actions: 'admit' } } });
const actor = createActor(machine).start();
const evented = timeIt('admit + finish, limited level, one xstate event per request', () => {
  for (let i = 0; i < N; i++) actor.send({ type: 'ADMIT' });
});

const bare = setup({ types: { events: {} as { type: 'X' } } }).createMachine({ on: { X: {} } });
const bareActor = createActor(bare).start();
const send = timeIt('a bare xstate send (no action)', () => {
  for (let i = 0; i < N; i++) bareActor.send({ type: 'X' });
});

console.log(
  `\nper-request actor event costs ${(evented / direct).toFixed(2)}× the direct call (xstate send alone: ${((send / direct) * 100).toFixed(0)}% of a ` +
    'direct admission)',
);
