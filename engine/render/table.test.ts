import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { FlowSchema, PriorityLevelConfiguration } from '../resources/types.ts';
import { humanDuration, parseIncludeObject, tableOrder, toTable } from './table.ts';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const NOW = Date.parse('2026-03-01T12:00:00Z');
const created = (agoMs: number) => new Date(NOW - agoMs).toISOString().replace(/\.\d+Z$/, 'Z');

test('HumanDuration boundaries, as kubectl prints ages', () => {
  const cases: [number, string][] = [
    [0, '0s'],
    [-1500, '0s'],
    [-2000, '<invalid>'],
    [999, '0s'],
    [119 * SECOND, '119s'],
    [120 * SECOND, '2m'],
    [123 * SECOND, '2m3s'],
    [9 * MINUTE + 59 * SECOND, '9m59s'],
    [10 * MINUTE + 30 * SECOND, '10m'],
    [179 * MINUTE, '179m'],
    [3 * HOUR, '3h'],
    [3 * HOUR + 30 * MINUTE, '3h30m'],
    [7 * HOUR + 59 * MINUTE, '7h59m'],
    [8 * HOUR + 59 * MINUTE, '8h'],
    [47 * HOUR, '47h'],
    [48 * HOUR, '2d'],
    [50 * HOUR, '2d2h'],
    [7 * DAY + 23 * HOUR, '7d23h'],
    [8 * DAY + 5 * HOUR, '8d'],
    [729 * DAY, '729d'],
    [730 * DAY, '2y'],
    [731 * DAY, '2y1d'],
    [8 * 365 * DAY - DAY, '7y364d'],
    [8 * 365 * DAY, '8y'],
    [10 * 365 * DAY + 100 * DAY, '10y'],
  ];
  for (const [ms, text] of cases) assert.is(humanDuration(ms), text, `${ms} ms`);
});

const limitedQueued: PriorityLevelConfiguration = {
  metadata: { name: 'workload-low', uid: 'u1', resourceVersion: '7', creationTimestamp: created(5 * HOUR) },
  spec: {
    type: 'Limited',
    limited: {
      nominalConcurrencyShares: 100,
      lendablePercent: 90,
      limitResponse: { type: 'Queue', queuing: { queues: 128, handSize: 6, queueLengthLimit: 50 } },
    },
  },
};
const limitedReject: PriorityLevelConfiguration = {
  metadata: { name: 'catch-all', creationTimestamp: created(12 * DAY) },
  spec: { type: 'Limited', limited: { nominalConcurrencyShares: 5, limitResponse: { type: 'Reject' } } },
};
const exempt: PriorityLevelConfiguration = {
  metadata: { name: 'exempt', creationTimestamp: created(90 * SECOND) },
  spec: { type: 'Exempt', exempt: { nominalConcurrencyShares: 0 } },
};

test('PriorityLevelConfiguration columns and cells, with <none> where the printer puts it', () => {
  const table = toTable('PriorityLevelConfiguration', [limitedQueued, limitedReject, exempt], { nowMs: NOW });
  assert.equal(
    table.columnDefinitions!.map((c) => c.name),
    ['Name', 'Type', 'NominalConcurrencyShares', 'Queues', 'HandSize', 'QueueLengthLimit', 'Age'],
  );
  assert.ok(table.columnDefinitions!.every((c) => c.type === 'string' && c.priority === 0 && c.description.length > 0));
  assert.equal(
    table.columnDefinitions!.map((c) => c.format),
    ['name', '', '', '', '', '', ''],
  );
  assert.equal(
    table.rows.map((r) => r.cells),
    [
      ['workload-low', 'Limited', 100, 128, 6, 50, '5h'],
      ['catch-all', 'Limited', 5, '<none>', '<none>', '<none>', '12d'],
      ['exempt', 'Exempt', '<none>', '<none>', '<none>', '<none>', '90s'],
    ],
  );
});

const fs = (name: string, precedence: number, extra: Partial<FlowSchema> = {}): FlowSchema => ({
  metadata: { name, creationTimestamp: created(3 * DAY) },
  spec: { priorityLevelConfiguration: { name: 'workload-low' }, matchingPrecedence: precedence, ...(extra.spec ?? {}) },
  ...(extra.status ? { status: extra.status } : {}),
});

test('FlowSchema rows are sorted by precedence then name, with DistinguisherMethod and MissingPL rules', () => {
  const items = [
    fs('zeta', 1000, { spec: { distinguisherMethod: { type: 'ByUser' } } }),
    fs('alpha', 1000, { status: { conditions: [{ type: 'Dangling', status: 'False' }] } }),
    fs('exempt', 1, {
      status: {
        conditions: [
          { type: 'Other', status: 'True' },
          { type: 'Dangling', status: 'True' },
        ],
      },
    }),
    fs('Upper', 1000),
  ];
  const table = toTable('FlowSchema', items, { nowMs: NOW });
  assert.equal(
    table.columnDefinitions!.map((c) => c.name),
    ['Name', 'PriorityLevel', 'MatchingPrecedence', 'DistinguisherMethod', 'Age', 'MissingPL'],
  );
  assert.equal(
    table.rows.map((r) => r.cells),
    [
      ['exempt', 'workload-low', 1, '<none>', '3d', 'True'],
      ['Upper', 'workload-low', 1000, '<none>', '3d', '?'],
      ['alpha', 'workload-low', 1000, '<none>', '3d', 'False'],
      ['zeta', 'workload-low', 1000, 'ByUser', '3d', '?'],
    ],
  );
  assert.equal(
    items.map((i) => i.metadata?.name),
    ['zeta', 'alpha', 'exempt', 'Upper'],
    'input left untouched',
  );
});

test('row objects: PartialObjectMetadata by default, the full object, or null', () => {
  const metadata = toTable('PriorityLevelConfiguration', [limitedQueued], { nowMs: NOW }).rows[0]!.object;
  assert.equal(metadata, { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: limitedQueued.metadata });
  const full = toTable('PriorityLevelConfiguration', [limitedQueued], { nowMs: NOW, includeObject: 'Object' }).rows[0]!.object!;
  assert.equal(Object.keys(full), ['kind', 'apiVersion', 'metadata', 'spec']);
  assert.equal([full.kind, full.apiVersion, full.spec], ['PriorityLevelConfiguration', 'flowcontrol.apiserver.k8s.io/v1', limitedQueued.spec]);
  assert.is(toTable('PriorityLevelConfiguration', [limitedQueued], { nowMs: NOW, includeObject: 'None' }).rows[0]!.object, null);
  assert.is(
    JSON.stringify(toTable('FlowSchema', [fs('a', 1)], { nowMs: NOW, includeObject: 'None' }).rows[0]),
    '{"cells":["a","workload-low",1,"<none>","3d","?"],"object":null}',
  );
});

test('list metadata carries over; headers can be left out; the meta group follows apiDomain', () => {
  const table = toTable('FlowSchema', [], { nowMs: NOW, listMeta: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 } });
  assert.equal(JSON.parse(JSON.stringify(table)), {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: { resourceVersion: '42', continue: 'tok', remainingItemCount: 3 },
    columnDefinitions: table.columnDefinitions,
    rows: [],
  });
  assert.equal(toTable('FlowSchema', [], { nowMs: NOW, listMeta: { continue: '' } }).metadata, {});
  assert.is(toTable('FlowSchema', [], { nowMs: NOW, noHeaders: true }).columnDefinitions, null);
  const other = toTable('FlowSchema', [fs('a', 1)], { nowMs: NOW, apiDomain: 'example.com', includeObject: 'Object' });
  assert.is(other.apiVersion, 'meta.example.com/v1');
  assert.is(other.rows[0]!.object!.apiVersion, 'flowcontrol.apiserver.example.com/v1');
});

test('a missing or unparsable creationTimestamp shows <unknown>', () => {
  const rows = toTable(
    'PriorityLevelConfiguration',
    [{ metadata: { name: 'a' } }, { metadata: { name: 'b', creationTimestamp: 'garbage' }, spec: { type: 'Exempt' } }],
    { nowMs: NOW },
  ).rows;
  assert.equal(
    rows.map((r) => r.cells[6]),
    ['<unknown>', '<unknown>'],
  );
  assert.equal(rows[0]!.cells.slice(0, 2), ['a', '']);
});

test('includeObject values: None, Metadata (default), Object; anything else → 400', () => {
  assert.equal(parseIncludeObject(undefined), { ok: true, includeObject: 'Metadata' });
  assert.equal(parseIncludeObject('Object'), { ok: true, includeObject: 'Object' });
  assert.equal(parseIncludeObject('None'), { ok: true, includeObject: 'None' });
  const bad = parseIncludeObject('object');
  assert.not.ok(bad.ok);
  if (!bad.ok) assert.equal([bad.status.code, bad.status.message], [400, 'unrecognized includeObject value: "object"']);
});

test('the rows’ order for kept rows: by precedence then name, whether or not the list comes by name', () => {
  const fs = (name: string, matchingPrecedence: number) => ({ metadata: { name }, spec: { matchingPrecedence } }) as FlowSchema;
  const byName = [fs('a', 500), fs('b', 100), fs('c', 500), fs('d', 100), fs('e', 9000)];
  assert.equal(tableOrder('FlowSchema', byName), [1, 3, 0, 2, 4]);
  const shuffled = [fs('d', 100), fs('a', 500), fs('e', 9000), fs('b', 100), fs('c', 500)];
  assert.equal(tableOrder('FlowSchema', shuffled), [3, 0, 1, 4, 2]);
  assert.equal(tableOrder('PriorityLevelConfiguration', shuffled as never), [0, 1, 2, 3, 4]);
});

test.run();
