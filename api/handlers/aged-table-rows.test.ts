// A kept Table row with its Age in place: made once per Age text, replaced when the text changes,
// charged to the encoding budget once, and not made when the budget is spent.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { agedTableRows, EncodingBudget, tableRowSplit } from './encoded-items.ts';

/** A kept row as the encode-table-rows stage makes it: the 4-byte offset of the Age's place, then the row. */
function keptRow(before: string, after: string): Uint8Array {
  const prefix = Buffer.alloc(4);
  prefix.writeUInt32LE(Buffer.byteLength(before), 0);
  return Buffer.concat([prefix, Buffer.from(before), Buffer.from(after)]);
}

test('the row as sent: the kept text around the Age, one copy per Age text', () => {
  const budget = new EncodingBudget(1 << 20);
  const aged = agedTableRows(budget);
  const row = keptRow('{"cells":["a",', ']}');
  assert.is(tableRowSplit(row), 4 + '{"cells":["a",'.length);
  const first = aged(row, '"5s"')!;
  assert.is(Buffer.from(first).toString(), '{"cells":["a","5s"]}');
  assert.is(aged(row, '"5s"'), first, 'the same Age: the kept copy');
  const used = budget.usedBytes;
  assert.ok(used > 0);
  assert.is(Buffer.from(aged(row, '"6s"')!).toString(), '{"cells":["a","6s"]}');
  assert.is(budget.usedBytes, used, 'a later Age replaces the copy without charging again');
});

test('a spent budget keeps no copy: the caller sends the row in parts', () => {
  const aged = agedTableRows(new EncodingBudget(0));
  assert.is(aged(keptRow('{"cells":[', ']}'), '"1m"'), undefined);
});

test.run();
