import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { episodesOf } from './tail-episodes.ts';

test('slow answers less than the gap apart make one episode; fast ones are left out', () => {
  const answers: [number, number][] = [
    [1000, 80],
    [50, 5],
    [1100, 95],
    [1150, 3],
    [1240, 70],
    [5000, 120],
  ];
  assert.equal(episodesOf(answers, 70, 200), [
    { fromMs: 1000, toMs: 1240, count: 3, worstMs: 95 },
    { fromMs: 5000, toMs: 5000, count: 1, worstMs: 120 },
  ]);
  assert.equal(episodesOf(answers, 200, 200), []);
});

test.run();
