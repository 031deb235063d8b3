import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseDocument } from 'yaml';
import { aliasExpansion, measureYamlCost, YAML_COST_LIMITS, yamlNestingDepthBound } from './yaml-cost.ts';

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

test('nodes, anchors and aliases are counted as written', () => {
  const result = measureYamlCost('a: &x [1, "two", 3]\nb: *x\nc:\n- d\n');
  assert.is(result.exceeded, undefined);
  // [ 1 "two" 3, the alias, the scalars a b c d, three `:` and one `-`.
  assert.equal({ ...result.cost, depth: 0 }, { depth: 0, nodes: 13, anchors: 1, aliases: 1 });
});

test('each bound stops the scan with its own message', () => {
  const limits = { ...YAML_COST_LIMITS, nodes: 10, anchors: 2, aliases: 2, depth: 5 };
  assert.equal(measureYamlCost(`[${'0,'.repeat(1_000_000)}0]`, limits).exceeded, { bound: 'nodes', limit: 10, message: 'document has more than 10 nodes' });
  assert.equal(measureYamlCost('- &a x\n- &b x\n- &c x\n', limits).exceeded?.message, 'document has more than 2 anchors');
  assert.equal(measureYamlCost('- &a x\n- *a\n- *a\n- *a\n', limits).exceeded?.message, 'document has more than 2 aliases');
  assert.equal(measureYamlCost('[[[[[[[[[[[]]]]]]]]]]]', limits).exceeded?.bound, 'depth');
  assert.is(measureYamlCost('apiVersion: v1\nkind: X\n', { ...limits, nodes: 100 }).exceeded, undefined);
});

test('the default bounds refuse 200k anchors and a long flow sequence', () => {
  let anchors = '';
  for (let i = 0; i < 200_000; i++) anchors += `a${i}: &a${i} v\n`;
  assert.is(measureYamlCost(anchors).exceeded?.bound, 'anchors');
  assert.is(measureYamlCost(`[${'0,'.repeat(600_000)}0]`).exceeded?.bound, 'nodes');
});

function expansion(text: string, limit?: number) {
  return aliasExpansion(parseDocument(text, { version: '1.1' }).contents, limit);
}

test('alias expansion counts each alias as the node it names', () => {
  // The map, a, the list, its three items, b, and the alias standing for the four-node list: 11.
  assert.equal(expansion('a: &x [1, 2, 3]\nb: *x\n'), { nodes: 11 });
  // A later anchor of the same name wins for the aliases after it, as the yaml package resolves them.
  assert.equal(expansion('- &x [1, 2, 3]\n- &x 1\n- *x\n'), { nodes: 7 });
  assert.equal(expansion('- &x [&x 1, 2]\n- *x\n'), { nodes: 5 }, 'the inner &x is the latest');
});

test('a billion laughs is refused as go-yaml refuses it', () => {
  let laughs = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let level = 1; level < 9; level++) {
    const name = String.fromCharCode(97 + level);
    const previous = String.fromCharCode(96 + level);
    laughs += `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]\n`;
  }
  assert.is(measureYamlCost(laughs).exceeded, undefined, 'few anchors and aliases as written');
  const result = expansion(laughs);
  assert.ok('exceeded' in result && result.exceeded.message === 'document contains excessive aliasing', JSON.stringify(result));
});

test('an alias inside the node it names is refused', () => {
  const result = expansion('a: &a [1, *a]\n');
  assert.ok('exceeded' in result && result.exceeded.message === "anchor 'a' value contains itself", JSON.stringify(result));
});

test('an unresolved alias counts one node and is left for the composer to report', () => {
  assert.equal(expansion('a: *nowhere\n'), { nodes: 3 });
});

test.run();
