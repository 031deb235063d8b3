// The assessment of objectives against run digests: protections hold each flow to its own baseline,
// borrowing caps read the level's most seats borrowed, server headroom reads the modelled server's
// peaks; and the objectives file's new fields with their errors.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowDigest, LevelDigest, RunDigest } from '../run-digest.ts';
import { assess } from './assess.ts';
import { parseObjectives, withImplicitObjectives, type Objective } from './objectives.ts';
import { failingRows, failures, objectivesTable, objectivesTableText } from './objectives-table.ts';

function flow(level: string, latencyP99Seconds: number | null, rejectedTotal = 0, arrived = 100): FlowDigest {
  return {
    priorityLevel: level,
    flowSchema: level,
    demandSeats: 1,
    arrived,
    dispatched: arrived - rejectedTotal,
    rejected: { 'queue-full': rejectedTotal, 'time-out': 0, 'concurrency-limit': 0 },
    rejectedTotal,
    waitP50Seconds: 0,
    waitP99Seconds: 0,
    latencyP50Seconds: latencyP99Seconds,
    latencyP99Seconds,
    seatsPerRequest: 1,
  };
}

function level(borrowingMaxSeats: number): LevelDigest {
  const rejected = { 'queue-full': 0, 'time-out': 0, 'concurrency-limit': 0 };
  return {
    nominalCL: 10,
    currentCLMean: 10,
    borrowingMeanSeats: 0,
    rejected,
    rejectedTotal: 0,
    seatsInUseMean: 1,
    waitingMean: 0,
    borrowingMaxSeats,
    maxSeats: 4,
  };
}

function digest(flows: Record<string, FlowDigest>, levels: Record<string, LevelDigest> = {}, capacity: RunDigest['capacity'] = null): RunDigest {
  const totals = { arrived: 0, dispatched: 0, completed: 0, rejected: 0 } as unknown as RunDigest['totals'];
  return { totals, flows, levels, fairness: {}, capacity };
}

const objective = (o: Partial<Objective>): Objective => ({ index: 0, flows: [], levels: [], ...o });

test('noWorseThan: each flow is held to its own worst baseline value plus the slack', () => {
  const baseline = [
    { seed: '1', digest: digest({ big: flow('l', 1), small: flow('l', 0.01) }) },
    { seed: '2', digest: digest({ big: flow('l', 0.9), small: flow('l', 0.008) }) },
  ];
  const o = objective({ levels: ['l'], noWorseThan: { slack: 0.1 } });
  const matched = new Map([[0, { flows: ['big', 'small'], levels: ['l'] }]]);
  // big: 1.05 s ≤ 1.1 s; small: 12 ms > 11 ms. Relative to its own limit, small is the worst.
  const candidate = [{ seed: '1', digest: digest({ big: flow('l', 1.05), small: flow('l', 0.012) }) }];
  const outcome = assess([o], matched, candidate, baseline);
  assert.is(outcome.met, false);
  const w = outcome.objectives[0]!.latencyP99NoWorse!;
  assert.equal([w.flow, w.seed, w.worst, w.limit, w.baseline, w.met], ['small', '1', 0.012, 0.011, 0.01, false]);
  assert.ok(outcome.distance > 0);
  assert.is(outcome.objectives[0]!.rejectedNoWorse!.met, true);
  // The baseline against itself always meets its protections.
  assert.is(assess([o], matched, baseline, baseline).met, true);
  // A flow that never rejected may not start to.
  const rejecting = [{ seed: '1', digest: digest({ big: flow('l', 1, 3), small: flow('l', 0.01) }) }];
  const r = assess([o], matched, rejecting, baseline).objectives[0]!.rejectedNoWorse!;
  assert.equal([r.flow, r.worst, r.limit, r.met], ['big', 0.03, 0, false]);
  assert.match(
    failures(assess([o], matched, rejecting, baseline)).join('\n'),
    /objectives\[0\]: big rejected no worse than baseline 3% in seed 1 \(limit 0%, baseline 0%\)/,
  );
});

test('borrowedSeats caps the most seats a level borrowed; server headroom reads the modelled peaks', () => {
  const runs = [
    { seed: '1', digest: digest({}, { a: level(12), b: level(30) }, { cpus: 4, peakCpu: 0.96, peakMemoryBytes: 6e9, memoryBytes: 8e9 }) },
    { seed: '2', digest: digest({}, { a: level(25), b: level(5) }, { cpus: 4, peakCpu: 0.7, peakMemoryBytes: 7.5e9, memoryBytes: 8e9 }) },
  ];
  const borrow = objective({ levels: ['a', 'b'], borrowedSeats: 20 });
  const w = assess([borrow], new Map([[0, { flows: [], levels: ['a', 'b'] }]]), runs).objectives[0]!.borrowedSeats!;
  assert.equal([w.flow, w.seed, w.worst, w.limit, w.met], ['b', '1', 30, 20, false]);

  const server = objective({ serverCpu: 0.8, serverMemory: 0.95 });
  const outcome = assess([server], new Map([[0, { flows: [], levels: [] }]]), runs).objectives[0]!;
  assert.equal([outcome.serverCpu!.worst, outcome.serverCpu!.seed, outcome.serverCpu!.met], [0.96, '1', false]);
  assert.equal([outcome.serverMemory!.worst, outcome.serverMemory!.seed, outcome.serverMemory!.met], [0.9375, '2', true]);
  const rows = objectivesTable([server], undefined, { met: false, distance: 1, objectives: [outcome] });
  assert.equal(
    rows.map((r) => [r.what, r.limit, r.recommended, r.margin, r.met]),
    [
      ['server CPU peak', '≤ 80%', '96%', '−16%', false],
      ['server memory peak', '≤ 95%', '93.8%', '+1.25%', true],
    ],
  );
  // The server is the subject, named once.
  assert.equal(failures({ met: false, distance: 1, objectives: [outcome] }), ['objectives[0]: server CPU peak 96% in seed 1 (limit 80%)']);
  // Why a candidate is not met (tune.json's candidates): only the failing rows, each at its worst.
  assert.equal(
    rows.map((r) => r.label),
    ['[0] server CPU peak', '[0] server memory peak'],
  );
  assert.equal(failingRows({ met: false, distance: 1, objectives: [outcome] }), [{ objective: '[0] server CPU peak', worst: '96%', limit: '80%', seed: '1' }]);
  const both = assess([borrow, { ...server, index: 1 }], new Map([[0, { flows: [], levels: ['a', 'b'] }]]), runs);
  assert.equal(
    failingRows(both).map((r) => [r.objective, r.worst, r.limit, r.seed]),
    [
      ['[0] level a, level b borrowed seats', '30 (b)', '20', '1'],
      ['[1] server CPU peak', '96%', '80%', '1'],
    ],
  );
});

test('server memory headroom is assessed when only memory is modelled (no server.cpus)', () => {
  const memoryOnly = (peakMemoryBytes: number) => digest({}, {}, { cpus: null, peakCpu: null, peakMemoryBytes, memoryBytes: 8e9 });
  const runs = [
    { seed: '1', digest: memoryOnly(6e9) },
    { seed: '2', digest: memoryOnly(7.6e9) },
  ];
  const outcome = assess([objective({ serverMemory: 0.9 })], new Map([[0, { flows: [], levels: [] }]]), runs).objectives[0]!;
  assert.equal([outcome.serverMemory!.worst, outcome.serverMemory!.seed, outcome.serverMemory!.met], [0.95, '2', false]);
});

test('with server.memory set, the tuner holds peak memory to 100% though the file names no memory objective', () => {
  const file = { file: 'o.yaml', objectives: [objective({ waitP99Seconds: 0.1 })], changes: {} };
  assert.is(withImplicitObjectives(file, { memoryBytes: null }), file, 'unbounded memory: nothing added');
  assert.is(
    withImplicitObjectives({ ...file, objectives: [objective({ serverMemory: 0.9 })] }, { memoryBytes: 8e9 }).objectives.length,
    1,
    'the file holds it',
  );
  const held = withImplicitObjectives(file, { memoryBytes: 8e9 }).objectives;
  assert.equal(held.slice(1), [{ index: 1, flows: [], levels: [], serverMemory: 1, implicit: 'server.memory is set' }]);
  const runs = [{ seed: '3', digest: digest({}, {}, { cpus: null, peakCpu: null, peakMemoryBytes: 8.8e9, memoryBytes: 8e9 }) }];
  const assessment = assess(held.slice(1), new Map(), runs);
  assert.is(assessment.met, false);
  const [row] = objectivesTable(held, undefined, assessment);
  assert.equal([row!.what, row!.limit, row!.recommended, row!.met], ['server memory peak', '≤ 100% (server.memory is set)', '110%', false]);
  assert.equal(failures(assessment), ['implicit objective (server.memory is set): server memory peak 110% in seed 3 (limit 100%)']);
  // Not an entry of the file: no index of one, in the table's label, tune.json's row or the terminal.
  assert.equal([row!.objective, row!.implicit, row!.label], [null, 'server.memory is set', '[implicit] server memory peak']);
  assert.match(objectivesTableText([row!])[1]!, /^\[implicit\] server memory peak +≤ 100%/);
  assert.equal(failingRows(assessment), [{ objective: '[implicit] server memory peak', worst: '110%', limit: '100%', seed: '3' }]);
});

test('objectives table: a zero wait carries its unit like any other value', () => {
  const o = objective({ flows: ['a'], waitP99Seconds: 0.1 });
  const runs = [{ seed: '1', digest: digest({ a: flow('l', 0.05) }) }];
  const [row] = objectivesTable([o], undefined, assess([o], new Map([[0, { flows: ['a'], levels: [] }]]), runs));
  assert.equal([row!.limit, row!.recommended, row!.margin], ['≤ 100 ms', '0 s (a)', '+100 ms']);
});

test('objectives: protections, borrowing caps and server headroom parse; misuse is named by field', () => {
  const parsed = parseObjectives(
    [
      'kind: TuneObjectives',
      'objectives:',
      '  - {levels: "*", noWorseThan: baseline, slack: 25%}',
      '  - {levels: [ci-tools], borrowedSeats: 40}',
      '  - {server: {cpu: 80%}}',
      '  - {flows: a, latencyP99: 2s}',
      '',
    ].join('\n'),
    'o.yaml',
  );
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  assert.equal(parsed.objectives.objectives, [
    { index: 0, flows: [], levels: ['*'], noWorseThan: { slack: 0.25 } },
    { index: 1, flows: [], levels: ['ci-tools'], borrowedSeats: 40 },
    { index: 2, flows: [], levels: [], serverCpu: 0.8 },
    { index: 3, flows: ['a'], levels: [], latencyP99Seconds: 2 },
  ]);
  const bad = parseObjectives(
    [
      'kind: TuneObjectives',
      'objectives:',
      '  - {flows: a, noWorseThan: yesterday}',
      '  - {flows: a, waitP99: 1s, slack: 5%}',
      '  - {flows: a, borrowedSeats: 3}',
      '  - {server: {cpu: 80%}, flows: a}',
      '  - {flows: a}',
      '',
    ].join('\n'),
    'o.yaml',
  );
  assert.not.ok(bad.ok);
  if (bad.ok) return;
  assert.equal(bad.errors, [
    'o.yaml:3: objectives[0].noWorseThan: must be "baseline", got "yesterday"',
    'o.yaml:4: objectives[1].slack: goes with noWorseThan: baseline',
    'o.yaml:5: objectives[2].borrowedSeats: needs levels: the priority levels whose borrowing it caps',
    'o.yaml:5: objectives[2].flows: borrowedSeats caps levels: name them with levels, not flows',
    'o.yaml:6: objectives[3]: server stands alone in its objective (also given: flows)',
    'o.yaml:7: objectives[4]: give at least one of waitP99, latencyP99, rejected, noWorseThan, borrowedSeats or server',
  ]);
});

test.run();
