// The reader's syntax texts and duplicates are tested through engine/patch/go-json.test.ts; these are
// what the request-body and continue-token readers add.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseGoJson } from './go-json.ts';

test('numbers not written as short plain integers keep their literal, by path', () => {
  const parsed = parseGoJson('{"a":5e3,"b":[1,5.0],"c":{"d":1234567890123456},"e":7,"f":-1E-2}');
  assert.ok(!('error' in parsed));
  if ('error' in parsed) return;
  assert.equal(
    [...parsed.numberLiterals],
    [
      ['a', '5e3'],
      ['b[1]', '5.0'],
      ['c.d', '1234567890123456'],
      ['f', '-1E-2'],
    ],
  );
});

test("deep nesting is Go's error, never a stack overflow", () => {
  assert.equal(parseGoJson(`${'['.repeat(10_001)}${']'.repeat(10_001)}`), { error: 'exceeded max depth' });
  // Past what this engine's stack holds (request bodies never get here: nesting-depth.ts stops them at 256).
  assert.equal(parseGoJson(`${'{"a":'.repeat(200_000)}1${'}'.repeat(200_000)}`), { error: 'exceeded max depth' });
  assert.ok(!('error' in parseGoJson(`${'['.repeat(1_000)}${']'.repeat(1_000)}`)));
});

test.run();
