import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseSeed, parseSeedList, streamPrng } from './seed.ts';

test('seeds are decimal integers or 40 hex digits (case-folded); anything else is refused with the reason', () => {
  assert.equal(parseSeed('42'), { ok: true, seed: '42' });
  assert.equal(parseSeed('0'), { ok: true, seed: '0' });
  const hash = '52AD553F0123456789abcdef0123456789ABCDEF';
  assert.equal(parseSeed(hash), { ok: true, seed: hash.toLowerCase() });
  for (const bad of ['', '-1', '1.5', '007', 'abc', '52ad553f', '9007199254740993', `${hash}0`]) {
    const parsed = parseSeed(bad);
    assert.is(parsed.ok, false, bad);
    if (!parsed.ok) assert.match(parsed.message, /decimal integer .* 40 hex digits/);
  }
});

test('seed lists take ranges, lists and hex seeds; a reversed range is an error', () => {
  assert.equal(parseSeedList('1..3,7'), { ok: true, seeds: ['1', '2', '3', '7'] });
  assert.equal(parseSeedList(' 5 .. 5 '), { ok: true, seeds: ['5'] });
  const hash = 'a'.repeat(40);
  assert.equal(parseSeedList(`2,${hash}`), { ok: true, seeds: ['2', hash] });
  assert.is(parseSeedList('3..1').ok, false);
  assert.is(parseSeedList('1..x').ok, false);
  assert.is(parseSeedList('1..1000', 10).ok, false);
});

test('a stream depends on the seed and its own name only', () => {
  const draws = (seed: string, name: string) => {
    const prng = streamPrng(seed, name);
    return [prng.next(), prng.next(), prng.next()];
  };
  assert.equal(draws('1', 'flow:a'), draws('1', 'flow:a'));
  assert.not.equal(draws('1', 'flow:a'), draws('1', 'flow:b'));
  assert.not.equal(draws('1', 'flow:a'), draws('2', 'flow:a'));
  // Drawing from another stream first changes nothing (no shared parent generator).
  const other = streamPrng('1', 'flow:b');
  for (let i = 0; i < 100; i++) other.next();
  assert.equal(draws('1', 'flow:a'), draws('1', 'flow:a'));
});

test.run();
