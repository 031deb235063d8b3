import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tabwrite } from './tabwriter.ts';

// Expected outputs worked out by hand from Go's text/tabwriter rules (minwidth 8, padding 1).

test('a column is as wide as its widest cell plus one, and at least 8; the last cell is not padded', () => {
  const out = tabwrite('a,\tbbb,\tc\ndddddddddd,\te,\tf\n');
  assert.is(out, `a,${' '.repeat(10)}bbb,${' '.repeat(4)}c\ndddddddddd, e,${' '.repeat(6)}f\n`);
});

test('alignment holds per block of consecutive lines that have the column', () => {
  assert.is(tabwrite('aaaaaaaaaaaa\tb\tc\nx\ty\nq\n'), `aaaaaaaaaaaa b${' '.repeat(7)}c\nx${' '.repeat(12)}y\nq\n`);
  assert.is(tabwrite('a\tb\nc\nlonglonglong\td\n'), `a${' '.repeat(7)}b\nc\nlonglonglong d\n`);
});

test('widths count characters, not UTF-16 units', () => {
  assert.is(tabwrite('é😀\tx\n'), `é😀${' '.repeat(6)}x\n`);
});

test.run();
