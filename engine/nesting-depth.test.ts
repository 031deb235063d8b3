import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { jsonNestingDepth, yamlNestingDepthBound } from './nesting-depth.ts';

test('JSON depth is exact and ignores brackets inside strings', () => {
  assert.is(jsonNestingDepth('{}'), 1);
  assert.is(jsonNestingDepth('{"a":[1,{"b":[]}],"c":{}}'), 4);
  assert.is(jsonNestingDepth('{"a":"[[[[{{{{"}'), 1);
  assert.is(jsonNestingDepth('{"a":"\\"[[[","b":[]}'), 2, 'an escaped quote does not end the string');
  assert.is(jsonNestingDepth('"just a string"'), 0);
  assert.is(jsonNestingDepth('[[['), 3, 'a truncated body counts what it opened');
});

test('JSON depth stops counting just past the limit', () => {
  assert.is(jsonNestingDepth('['.repeat(1_000_000), 10), 11);
});

test('the YAML bound counts flow collections exactly, not brackets in scalars', () => {
  // 2 for the document's one indentation column, then the flow depth.
  assert.is(yamlNestingDepthBound('[[[]]]', 100), 2 + 3);
  assert.is(yamlNestingDepthBound('{"a":{"b":{"c":1}}}', 100), 2 + 3);
  assert.is(yamlNestingDepthBound('a: "[[[[[["\nb: \'{{{{\'\nc: x[[[[\n', 100), 2 + 1, 'quoted and plain scalars are single tokens');
  assert.is(yamlNestingDepthBound('a: |\n  [[[[[[\n  {{{{{{\nb: 1\n', 100), 2 + 1, 'a block scalar is one token');
});

test('the YAML bound is at least the block nesting, however it is indented', () => {
  let mappings = '';
  for (let i = 0; i < 50; i++) mappings += `${' '.repeat(i * 2)}k${i}:\n`;
  assert.ok(yamlNestingDepthBound(mappings, 1000) >= 50, 'mappings nested by indentation');
  // A sequence under a mapping key may sit at the key's column: two levels per column.
  let alternating = '';
  for (let i = 0; i < 50; i++) alternating += `${' '.repeat(i * 2)}${i === 0 ? '' : '- '}k${i}:\n`;
  assert.ok(yamlNestingDepthBound(alternating, 1000) >= 99, 'key, sequence, key, sequence...');
  assert.ok(yamlNestingDepthBound('- - - - - x\n', 1000) >= 5, 'compact nested sequences');
  const manifest = 'apiVersion: v1\nkind: X\nmetadata:\n  name: a\n  labels: {a: b}\nspec:\n  rules:\n  - subjects:\n    - kind: User\n      user: {name: x}\n';
  assert.ok(yamlNestingDepthBound(manifest) < 20, `a typical manifest is far from the limit: ${yamlNestingDepthBound(manifest)}`);
});

test('many keys on one line of flow YAML are not nesting', () => {
  const wide = `{${Array.from({ length: 1000 }, (_, i) => `"k${i}": ${i}`).join(', ')}}`;
  assert.is(yamlNestingDepthBound(wide), 2 + 1);
});

test.run();
