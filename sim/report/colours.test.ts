// A level's colour comes from its name alone: the same on every page, whichever other levels the
// page draws; two levels that draw one colour on a page differ by their dashes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LEVEL_PALETTE, levelColour, levelEncoding } from './colours.ts';

const colourOf = (encoding: Record<string, unknown>, level: string) => {
  const scale = (encoding.color as { scale: { domain: string[]; range: string[] } }).scale;
  return scale.range[scale.domain.indexOf(level)];
};

test('ci-tools has one colour whatever else the page shows', () => {
  const a = levelEncoding(['ci-tools', 'workload-low']);
  const b = levelEncoding(['aaa', 'catch-all', 'exempt', 'global-default', 'workload-high', 'ci-tools']);
  assert.is(colourOf(a, 'ci-tools'), levelColour('ci-tools'));
  assert.is(colourOf(b, 'ci-tools'), levelColour('ci-tools'));
  assert.ok(LEVEL_PALETTE.includes(levelColour('ci-tools')));
});

test('levels sharing a colour on a page are told apart by dashes', () => {
  const names = Array.from({ length: 24 }, (_, i) => `level-${i}`);
  const encoding = levelEncoding(names);
  const dashes = (encoding.strokeDash as { scale: { domain: string[]; range: number[][] } }).scale;
  const seen = new Set<string>();
  for (const [i, name] of dashes.domain.entries()) {
    const key = `${levelColour(name)} ${JSON.stringify(dashes.range[i])}`;
    assert.not.ok(seen.has(key), `${name} looks like another level`);
    seen.add(key);
  }
});

test.run();
