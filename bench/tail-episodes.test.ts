import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clearOfClientStalls, episodesOf } from './tail-episodes.ts';

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

test('answers in flight while the client was held at least the threshold are left out', () => {
  const answers: [number, number][] = [
    [0, 10],
    [95, 10],
    [150, 60],
    [300, 5],
  ];
  // Held 100–180 ms (a send 80 ms late): the answers in flight 95–105 and 150–210 overlap it; a 5 ms lag is ignored.
  assert.equal(
    clearOfClientStalls(
      answers,
      [
        [100, 80],
        [300, 5],
      ],
      20,
    ),
    [
      [0, 10],
      [300, 5],
    ],
  );
});

test.run();
