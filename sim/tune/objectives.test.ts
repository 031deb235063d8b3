import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { globMatches, parseObjectives } from './objectives.ts';

test('objectives: percentages, durations and globs', () => {
  const parsed = parseObjectives(
    'kind: TuneObjectives\nobjectives:\n  - {flows: [a, "b-*"], waitP99: 1m30s, rejected: 0.5%}\n  - {flows: c, rejected: 0}\n',
    'o.yaml',
  );
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  assert.equal(parsed.objectives.objectives[0], { index: 0, flows: ['a', 'b-*'], levels: [], waitP99Seconds: 90, rejectedFraction: 0.005 });
  assert.equal(parsed.objectives.objectives[1], { index: 1, flows: ['c'], levels: [], rejectedFraction: 0 });
  assert.ok(globMatches('kcm-*', 'kcm-deployment-controller'));
  assert.ok(globMatches('a?c', 'abc'));
  assert.not.ok(globMatches('kcm-*', 'xkcm-a'));
  assert.not.ok(globMatches('a.c', 'abc'));
});

test.run();
