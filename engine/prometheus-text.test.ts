// The text exposition reader: labelled histograms kept apart, escapes, infinities, comments.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseExposition } from './prometheus-text.ts';

test('each sample with its own labels; HELP/TYPE passed over; escapes and infinities', () => {
  const text = [
    '# HELP x_seconds A histogram.',
    '# TYPE x_seconds histogram',
    'x_seconds_bucket{a="1",le="0.5"} 3',
    'x_seconds_bucket{a="1",le="+Inf"} 4',
    'x_seconds_sum{a="1"} 2.5',
    'x_seconds_count{a="1"} 4',
    'x_seconds_bucket{a="2",le="+Inf"} 7 1700000000000',
    'odd{path="a\\"b\\\\c\\nd",__proto__="p"} NaN',
    'inf +Inf',
    'broken{a="1" 3',
    '',
  ].join('\n');
  const samples = parseExposition(text);
  assert.equal(
    samples.map((s) => [s.name, { ...s.labels }, s.value]),
    [
      ['x_seconds_bucket', { a: '1', le: '0.5' }, 3],
      ['x_seconds_bucket', { a: '1', le: '+Inf' }, 4],
      ['x_seconds_sum', { a: '1' }, 2.5],
      ['x_seconds_count', { a: '1' }, 4],
      ['x_seconds_bucket', { a: '2', le: '+Inf' }, 7],
      ['odd', { path: 'a"b\\c\nd', ['__proto__']: 'p' }, Number.NaN],
      ['inf', {}, Number.POSITIVE_INFINITY],
    ],
  );
  assert.is(Object.getPrototypeOf(samples[5]!.labels), null, 'label names from a server never reach a prototype');
});

test.run();
