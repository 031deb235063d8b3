import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, klogHeader } from './log.ts';

test('klog header: severity, month and day, UTC time with microseconds, pid, source', () => {
  assert.is(klogHeader('I', Date.UTC(2026, 10, 21, 5, 36, 12, 123), 42, 'serve.ts'), 'I1121 05:36:12.123000      42 serve.ts]');
  assert.is(klogHeader('E', Date.UTC(2026, 0, 2, 3, 4, 5, 6), 1234567, 'x.ts'), 'E0102 03:04:05.006000 1234567 x.ts]');
});

test('one line per message, newlines escaped', () => {
  const lines: string[] = [];
  createLogger('t.ts', (line) => lines.push(line)).warning('a\nb');
  assert.is(lines.length, 1);
  assert.match(lines[0]!, /^W\d{4} \d\d:\d\d:\d\d\.\d{6} +\d+ t\.ts\] a\\nb\n$/);
});

test.run();
