import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng } from './random.ts';
import {
  chooseQueueIndex,
  createDealer,
  deal,
  dealerParameterError,
  dealRemainders,
  hashFlowId,
  isDealer,
  requiredEntropyBits,
  type Dealer,
} from './shuffle-sharding.ts';

function dealer(deck: number, hand: number): Dealer {
  const d = createDealer(deck, hand);
  if (!isDealer(d)) throw new Error(d.error);
  return d;
}

test('11.1: RequiredEntropyBits, upstream and derived', () => {
  assert.is(requiredEntropyBits(1024, 6), 60);
  assert.is(requiredEntropyBits(512, 8), 72);
  assert.is(requiredEntropyBits(128, 10), 70);
  assert.is(requiredEntropyBits(10_000_000, 2), 47);
  assert.is(requiredEntropyBits(64, 6), 36);
  assert.is(requiredEntropyBits(128, 6), 42);
  assert.is(requiredEntropyBits(16, 4), 16);
  assert.is(requiredEntropyBits(64, 8), 48);
  assert.is(requiredEntropyBits(16, 15), 60);
  assert.is(requiredEntropyBits(16, 16), 64);
  assert.is(requiredEntropyBits(1, 1), 0);
  assert.ok(requiredEntropyBits(2147483647, 3) > 60);
});

test('11.1: NewDealer errors carry the upstream strings', () => {
  assert.equal(createDealer(-100, 8), { error: 'deckSize -100 or handSize 8 is not positive' });
  assert.equal(createDealer(100, 0), { error: 'deckSize 100 or handSize 0 is not positive' });
  assert.equal(createDealer(100, 101), { error: 'handSize 101 is greater than deckSize 100' });
  assert.equal(createDealer(2 ** 27, 2), { error: 'deckSize 134217728 is impractically large' });
  assert.equal(createDealer(512, 8), { error: 'required entropy bits of deckSize 512 and handSize 8 is greater than 60' });
  assert.equal(createDealer(1024, 6), { deckSize: 1024, handSize: 6 });
  assert.equal(createDealer(16, 15), { deckSize: 16, handSize: 15 });
  assert.equal(createDealer(16, 16), { error: 'required entropy bits of deckSize 16 and handSize 16 is greater than 60' });
  assert.equal(createDealer(1, 1), { deckSize: 1, handSize: 1 });
  assert.is(dealerParameterError(10_000_000, 2), undefined);
  assert.is(dealerParameterError(512, 4), undefined);
  assert.is(dealerParameterError(1.5, 1), 'deckSize 1.5 or handSize 1 is not an integer');
});

test('11.1: Deal remainders and hands', () => {
  const rows: [bigint, number, number, number[], number[]][] = [
    [0n, 6, 6, [0, 0, 0, 0, 0, 0], [0, 1, 2, 3, 4, 5]],
    [1n, 6, 6, [1, 0, 0, 0, 0, 0], [1, 0, 2, 3, 4, 5]],
    [5n, 6, 6, [5, 0, 0, 0, 0, 0], [5, 0, 1, 2, 3, 4]],
    [719n, 6, 6, [5, 4, 3, 2, 1, 0], [5, 4, 3, 2, 1, 0]],
    [1000n, 10, 3, [0, 1, 3], [0, 2, 5]],
    [7n, 4, 2, [3, 1], [3, 1]],
    [12345n, 128, 6, [57, 96, 0, 0, 0, 0], [57, 97, 0, 1, 2, 3]],
    [18446744073709551615n, 128, 6, [127, 1, 6, 54, 88, 5], [127, 1, 7, 56, 91, 6]],
    [0n, 64, 8, [0, 0, 0, 0, 0, 0, 0, 0], [0, 1, 2, 3, 4, 5, 6, 7]],
  ];
  for (const [hash, deck, hand, remainders, cards] of rows) {
    const d = dealer(deck, hand);
    assert.equal(dealRemainders(d, hash), remainders, `remainders of ${hash} on ${deck}/${hand}`);
    assert.equal(deal(d, hash), cards, `hand of ${hash} on ${deck}/${hand}`);
  }
});

test('11.1: hashFlowID values and the hands they deal', () => {
  const rows: [string, string, bigint, number, number, number[] | undefined][] = [
    ['global-default', 'alice', 0xf4de3bd42ccdf6b7n, 128, 6, [55, 62, 126, 125, 105, 1]],
    ['global-default', '', 0x4ba17d43ad24f583n, 128, 6, [3, 72, 82, 58, 1, 116]],
    ['service-accounts', 'system:serviceaccount:default:default', 0xba4dd08bd6ad597fn, 128, 6, [127, 66, 18, 15, 64, 74]],
    ['kube-system-service-accounts', 'kube-system', 0x505593ddbffe965cn, 128, 6, [92, 95, 124, 69, 84, 46]],
    ['system-leader-election', 'system:kube-scheduler', 0xa1c9014d05411b2an, 16, 4, [10, 15, 8, 13]],
    ['system-nodes', 'system:node:node-1', 0xa54580566ae0e4dfn, 64, 6, [31, 41, 53, 23, 38, 17]],
    ['catch-all', 'system:anonymous', 0x919c670075b79eadn, 0, 0, undefined],
  ];
  for (const [fs, distinguisher, expected, deck, hand, cards] of rows) {
    const h = hashFlowId(fs, distinguisher);
    assert.is(h, expected, `${fs}/${distinguisher}`);
    if (cards !== undefined) assert.equal(deal(dealer(deck, hand), h), cards, `${fs}/${distinguisher}`);
  }
  assert.is(hashFlowId('global-default', 'alice'), 17644606172554983095n);
  assert.is(hashFlowId('global-default', ''), 5449774753716172163n);
  // The separator matters: moving a byte across it changes the hash.
  assert.is.not(hashFlowId('ab', 'c'), hashFlowId('a', 'bc'));
});

test('every hand holds distinct cards inside the deck (seeded random hashes)', () => {
  const rng = createPrng('shuffle-sharding');
  const configs: [number, number][] = [
    [64, 6],
    [128, 6],
    [16, 4],
    [64, 8],
    [16, 15],
    [1, 1],
    [10_000_000, 2],
  ];
  for (const [deck, hand] of configs) {
    const d = dealer(deck, hand);
    for (let i = 0; i < 200; i++) {
      const hash = (BigInt(rng.int(2 ** 32)) << 32n) | BigInt(rng.int(2 ** 32));
      const cards = deal(d, hash);
      assert.is(cards.length, hand);
      assert.is(new Set(cards).size, hand, `duplicate card for ${hash} on ${deck}/${hand}`);
      for (const c of cards) assert.ok(Number.isInteger(c) && c >= 0 && c < deck);
    }
  }
});

test('chooseQueueIndex: rotated visit, strictly smallest waiting work, ties to the first visited', () => {
  const hand = [5, 2, 7, 0];
  const work: bigint[] = [];
  work[5] = 30n;
  work[2] = 10n;
  work[7] = 10n;
  work[0] = 40n;
  assert.is(chooseQueueIndex(hand, 0, work), 2);
  assert.is(chooseQueueIndex(hand, 2, work), 7); // visits 7, 0, 5, 2: 7 ties with 2 and was first
  assert.is(chooseQueueIndex(hand, 6, work), 7); // offset is taken modulo the hand size
  const allEqual = (_q: number) => 1n;
  assert.is(chooseQueueIndex(hand, 1, allEqual), 2);
  assert.is(chooseQueueIndex(hand, 3, allEqual), 0);
  assert.throws(() => chooseQueueIndex([], 0, work), /empty hand/);
});

test.run();
