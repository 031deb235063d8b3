import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { abbreviate, duration, fitTable, layoutScreen, LEVEL_COLUMNS, type Column } from './top-layout.ts';
import type { LevelRow, TopSnapshot } from './top-model.ts';

const level = (name: string, seatsInUse: number, rejected: number): LevelRow => ({
  name,
  nominal: 40,
  lendable: 10,
  limit: 35,
  seatsInUse,
  executing: seatsInUse,
  queued: 3,
  queuedSeats: 6,
  dispatched: 12.34,
  rejected,
  rejectedByReason: rejected > 0 ? { 'queue-full': rejected } : {},
  waitP99: 0.0123,
});

const SNAPSHOT: TopSnapshot = {
  intervalSeconds: 2,
  levels: [level('workload-low', 5, 0), level('a-very-long-priority-level-name-for-tests', 30, 2.5), level('system', 12, 0)],
  flowSchemas: Array.from({ length: 30 }, (_, i) => ({ name: `fs-${i}`, level: 'system', seatsInUse: i, executing: i, queued: 0, dispatched: 1, rejected: 0 })),
  flows: Array.from({ length: 30 }, (_, i) => ({ flowSchema: 'fs', level: 'system', flow: `user-${i}`, executing: 1, waiting: i, seats: i + 1 })),
};

const headerOf = (lines: string[]) => lines.find((l) => l.startsWith('PRIORITY LEVEL'))!;

test('a wide terminal shows every column; each narrower one drops the least important first', () => {
  const wide = layoutScreen(SNAPSHOT, { width: 200, height: 60, sort: 'seats', title: 'title', notices: [] });
  for (const column of LEVEL_COLUMNS) assert.ok(headerOf(wide).includes(column.header), column.header);
  const widths = [200, 120, 100, 80, 60, 40];
  let previous = LEVEL_COLUMNS.length + 1;
  for (const width of widths) {
    const lines = layoutScreen(SNAPSHOT, { width, height: 60, sort: 'seats', title: 'title '.repeat(40), notices: ['a notice '.repeat(30)] });
    for (const line of lines) assert.ok(line.length <= width, `${width}: ${JSON.stringify(line)}`);
    const shown = LEVEL_COLUMNS.filter((c) => headerOf(lines).includes(c.header)).length;
    assert.ok(shown <= previous, `${width}: ${shown} columns`);
    previous = shown;
    // What matters most is always there: the level, seats in use, queued and rejections.
    for (const header of ['PRIORITY LEVEL', 'SEATS', 'QUEUED', 'REJECT/s']) assert.ok(headerOf(lines).includes(header), `${width}: ${header}`);
  }
  const at80 = layoutScreen(SNAPSHOT, { width: 80, height: 60, sort: 'seats', title: 't', notices: [] });
  assert.not.ok(headerOf(at80).includes('REJECTED BY REASON'), 'the reasons go first');
  assert.ok(headerOf(at80).includes('LIMIT'));
});

test('when dropping is not enough the name column is abbreviated with …', () => {
  const lines = layoutScreen(SNAPSHOT, { width: 50, height: 60, sort: 'seats', title: 't', notices: [] });
  assert.ok(
    lines.some((l) => /^a-very-long-pr[^ ]*…/.test(l)),
    lines.join('\n'),
  );
  for (const line of lines) assert.ok(line.length <= 50, line);
  assert.is(abbreviate('abcdef', 4), 'abc…');
  assert.is(abbreviate('abc', 4), 'abc');
});

test('sorted by the key, largest first; rows beyond the height are cut, the levels kept', () => {
  const bySeats = layoutScreen(SNAPSHOT, { width: 120, height: 60, sort: 'seats', title: 't', notices: [] });
  const names = (lines: string[]) => lines.slice(lines.indexOf(headerOf(lines)) + 1, lines.indexOf(headerOf(lines)) + 4).map((l) => l.split(' ')[0]);
  assert.equal(names(bySeats), ['a-very-long-priority-level-name-for-tests', 'system', 'workload-low']);
  const byName = layoutScreen(SNAPSHOT, { width: 120, height: 60, sort: 'name', title: 't', notices: [] });
  assert.equal(names(byName), ['a-very-long-priority-level-name-for-tests', 'system', 'workload-low'].sort());
  const short = layoutScreen(SNAPSHOT, { width: 120, height: 24, sort: 'seats', title: 't', notices: [] });
  assert.is(short.length, 24);
  assert.ok(short.includes(headerOf(bySeats)));
  assert.ok(
    short.some((l) => l.startsWith('fs-29 ')),
    'the busiest FlowSchema first',
  );
  assert.ok(
    short.some((l) => l.startsWith('fs/user-29 ')),
    'the busiest flow first',
  );
  const wide = layoutScreen(SNAPSHOT, { width: Number.POSITIVE_INFINITY, height: Number.POSITIVE_INFINITY, sort: 'seats', title: 't', notices: [] });
  assert.ok(wide.some((l) => l.startsWith('fs-1 ')) && wide.some((l) => l.startsWith('fs/user-0 ')), '-o wide lists every row');
});

test('cells: durations in ms below a second; right-aligned numbers, left-aligned names', () => {
  assert.equal([duration(0.0123), duration(1.234), duration(undefined)], ['12.3ms', '1.23s', '-']);
  const columns: Column<{ n: string; v: number }>[] = [
    { header: 'NAME', rank: 0, name: true, cell: (r) => r.n },
    { header: 'V', rank: 1, cell: (r) => String(r.v) },
  ];
  assert.equal(fitTable(columns, [{ n: 'x', v: 10 }], 100), ['NAME   V', 'x     10']);
  assert.equal(fitTable(columns, [{ n: 'x', v: 10 }], 5), ['NAME', 'x'], 'V dropped');
});

test.run();
