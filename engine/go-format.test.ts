import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { goQuote, goSprintf } from './go-format.ts';

test('goQuote escapes as strconv.Quote does', () => {
  assert.is(goQuote('plain'), '"plain"');
  assert.is(goQuote('a"b\\c'), '"a\\"b\\\\c"');
  assert.is(goQuote('\n\t\r\x07\b\f\v'), '"\\n\\t\\r\\a\\b\\f\\v"');
  assert.is(goQuote('\x00\x1b\x7f'), '"\\x00\\x1b\\x7f"');
  assert.is(goQuote('héllo 世界 😀'), '"héllo 世界 😀"');
  assert.is(goQuote('\u200b'), '"\\u200b"'); // zero-width space is not printable
  assert.is(goQuote('\u0085'), '"\\u0085"');
  assert.is(goQuote('\ud800'), '"\\ufffd"');
});

test('goSprintf handles %s %q %d %v %% and reports missing arguments as Go does', () => {
  assert.is(goSprintf('%s %q not found', 'pods', 'x"y'), 'pods "x\\"y" not found');
  assert.is(goSprintf('%d%% of %v', 50, true), '50% of true');
  assert.is(goSprintf('%s and %s', 'one'), 'one and %!s(MISSING)');
});

test.run();
