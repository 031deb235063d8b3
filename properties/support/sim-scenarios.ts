// Small random simulator scenarios (docs/simulator.md's format, as JSON): a few seconds of one to
// three flows with every arrival and service-time type, any bootstrap, sometimes a level and a
// FlowSchema of their own, and a seed as `sim run` takes it (decimal or 40 hex digits). Kept small
// so that a run takes milliseconds.

import fc from 'fast-check';

export interface ScenarioCase {
  readonly scenario: Record<string, unknown>;
  readonly seed: string;
}

const arrival = fc.oneof(
  fc.integer({ min: 1, max: 150 }).map((rate) => ({ type: 'constant', rate })),
  fc.integer({ min: 1, max: 150 }).map((rate) => ({ type: 'poisson', rate })),
  fc
    .tuple(fc.integer({ min: 1, max: 300 }), fc.integer({ min: 100, max: 1500 }), fc.integer({ min: 0, max: 1500 }))
    .map(([rate, on, off]) => ({ type: 'burst', rate, on: `${on}ms`, off: `${off}ms` })),
);

const service = fc.oneof(
  fc.integer({ min: 0, max: 200 }).map((ms) => ({ type: 'constant', value: `${ms}ms` })),
  fc.integer({ min: 1, max: 200 }).map((ms) => ({ type: 'exponential', mean: `${ms}ms` })),
  fc
    .tuple(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 2, max: 10 }))
    .map(([median, factor]) => ({ type: 'lognormal', median: `${median}ms`, p99: `${median * factor}ms` })),
);

const flowShape = fc.oneof(
  fc.constant({ verb: 'get', resource: 'pods', objectName: 'p' }),
  fc.integer({ min: 1, max: 5000 }).map((objects) => ({ verb: 'list', resource: 'pods', objects })),
  fc.integer({ min: 0, max: 40 }).map((watchers) => ({ verb: 'create', resource: 'configmaps', watchers })),
  fc.constant({ verb: 'get', path: '/healthz' }),
);

const flow = fc.record({
  user: fc.constantFrom('alice', 'bob', 'system:serviceaccount:kube-system:job', 'system:kube-controller-manager'),
  namespace: fc.constantFrom('team-a', 'team-b', ''),
  shape: flowShape,
  arrival,
  service,
  startMs: fc.integer({ min: 0, max: 500 }),
});

const ownLevel = fc
  .record({
    shares: fc.integer({ min: 1, max: 50 }),
    queues: fc.integer({ min: 1, max: 16 }),
    queueLengthLimit: fc.integer({ min: 1, max: 20 }),
    lendablePercent: fc.integer({ min: 0, max: 100 }),
  })
  .map(({ shares, queues, queueLengthLimit, lendablePercent }) => [
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'PriorityLevelConfiguration',
      metadata: { name: 'prop-level' },
      spec: {
        type: 'Limited',
        limited: {
          nominalConcurrencyShares: shares,
          lendablePercent,
          limitResponse: { type: 'Queue', queuing: { queues, handSize: Math.min(queues, 2), queueLengthLimit } },
        },
      },
    },
    {
      apiVersion: 'flowcontrol.apiserver.k8s.io/v1',
      kind: 'FlowSchema',
      metadata: { name: 'prop-alice' },
      spec: {
        priorityLevelConfiguration: { name: 'prop-level' },
        matchingPrecedence: 500,
        distinguisherMethod: { type: 'ByNamespace' },
        rules: [
          {
            subjects: [{ kind: 'User', user: { name: 'alice' } }],
            resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], namespaces: ['*'], clusterScope: true }],
          },
        ],
      },
    },
  ]);

const seed = fc.oneof(
  fc.nat().map(String),
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => Buffer.from(bytes).toString('hex')),
);

export const scenarioCase: fc.Arbitrary<ScenarioCase> = fc
  .record({
    durationS: fc.integer({ min: 2, max: 5 }),
    maxRequestsInflight: fc.integer({ min: 2, max: 60 }),
    maxMutatingRequestsInflight: fc.integer({ min: 1, max: 20 }),
    bootstrap: fc.constantFrom('suggested', 'mandatory', 'none'),
    objects: fc.option(ownLevel, { nil: undefined }),
    flows: fc.array(flow, { minLength: 1, maxLength: 3 }),
    seed,
  })
  .map((c) => ({
    seed: c.seed,
    scenario: {
      kind: 'Scenario',
      name: 'property',
      duration: `${c.durationS}s`,
      server: { maxRequestsInflight: c.maxRequestsInflight, maxMutatingRequestsInflight: c.maxMutatingRequestsInflight },
      bootstrap: c.bootstrap,
      ...(c.objects !== undefined ? { objects: c.objects } : {}),
      objectCounts: { pods: 800 },
      flows: c.flows.map((f, i) => ({
        name: `flow-${i}`,
        user: f.user,
        ...(f.namespace !== '' && !('path' in f.shape) ? { namespace: f.namespace } : {}),
        ...f.shape,
        arrival: f.arrival,
        service: f.service,
        ...(f.startMs > 0 ? { start: `${f.startMs}ms` } : {}),
      })),
    },
  }));
