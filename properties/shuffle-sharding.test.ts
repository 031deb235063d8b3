// Shuffle sharding. Hands are distinct, in range, deterministic per flow and
// equal to KEP-1040's own definition (support/reference-deal.ts); the queue a flow's request
// lands on is uniform across random flows (a chi-square bound at a one-in-a-million tail), and a
// dealer that loses hash bits to float conversion must fail that same bound.

import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createPrng } from '../engine/random.ts';
import { chooseQueueIndex, deal, dealerParameterError, hashFlowId, requiredEntropyBits, type Dealer } from '../engine/shuffle-sharding.ts';
import { chiSquareCritical, chiSquareUniform } from './support/chi-square.ts';
import { referenceChooseQueue, referenceDeal } from './support/reference-deal.ts';
import { checkProperty, expectPropertyToFail } from './support/runner.ts';

const uint64 = fc.bigInt({ min: 0n, max: (1n << 64n) - 1n });

/** (deck, hand) pairs NewDealer accepts; decks small enough for the list-based reference. */
const smallDealer: fc.Arbitrary<Dealer> = fc
  .record({ deckSize: fc.integer({ min: 1, max: 1024 }), handSize: fc.integer({ min: 1, max: 15 }) })
  .filter(({ deckSize, handSize }) => dealerParameterError(deckSize, handSize) === undefined);

/** Any accepted pair, up to the 2^26 deck limit. */
const anyDealer: fc.Arbitrary<Dealer> = fc
  .record({ deckSize: fc.integer({ min: 1, max: 1 << 26 }), handSize: fc.integer({ min: 1, max: 15 }) })
  .map(({ deckSize, handSize }) => ({ deckSize, handSize: Math.min(handSize, deckSize) }))
  .filter(({ deckSize, handSize }) => dealerParameterError(deckSize, handSize) === undefined);

test('hands equal the KEP definition (the A[i]-th of the cards not yet dealt)', () => {
  checkProperty(
    'shuffle-sharding: deal = reference',
    fc.property(smallDealer, uint64, (dealer, hash) => {
      assert.equal(deal(dealer, hash), referenceDeal(dealer.deckSize, dealer.handSize, hash));
    }),
    { runs: 500 },
  );
});

test('hands are distinct, in range, of the hand size, and deterministic per flow', () => {
  checkProperty(
    'shuffle-sharding: distinct, in range, deterministic',
    fc.property(anyDealer, fc.string(), fc.string(), (dealer, flowSchema, distinguisher) => {
      const hash = hashFlowId(flowSchema, distinguisher);
      const hand = deal(dealer, hash);
      assert.is(hand.length, dealer.handSize);
      assert.is(new Set(hand).size, hand.length, `repeated card in ${hand.join(',')}`);
      for (const card of hand) assert.ok(Number.isInteger(card) && card >= 0 && card < dealer.deckSize, `card ${card}`);
      assert.is(hashFlowId(flowSchema, distinguisher), hash);
      assert.equal(deal(dealer, hashFlowId(flowSchema, distinguisher)), hand);
    }),
    { runs: 300 },
  );
});

test('the flow hash is the first 8 bytes of SHA-256(fs ‖ 0x00 ‖ distinguisher), little-endian', () => {
  checkProperty(
    'shuffle-sharding: flow hash definition',
    fc.property(fc.string(), fc.string(), (flowSchema, distinguisher) => {
      const hex = createHash('sha256')
        .update(Buffer.from(`${flowSchema}\u0000${distinguisher}`, 'utf8'))
        .digest('hex');
      const littleEndian = hex.slice(0, 16).match(/../g)!.reverse().join('');
      assert.is(hashFlowId(flowSchema, distinguisher), BigInt(`0x${littleEndian}`));
    }),
    { runs: 200 },
  );
});

test('an arrival takes the first queue of the rotated hand with strictly the least waiting work', () => {
  const choice = fc
    .record({ deckSize: fc.integer({ min: 1, max: 32 }), offset: fc.nat({ max: 1000 }), hash: uint64, handSize: fc.integer({ min: 1, max: 8 }) })
    .chain(({ deckSize, offset, hash, handSize }) =>
      fc.record({
        hand: fc.constant(referenceDeal(deckSize, Math.min(handSize, deckSize), hash)),
        offset: fc.constant(offset),
        work: fc.array(fc.bigInt({ min: 0n, max: 5n }), { minLength: deckSize, maxLength: deckSize }),
      }),
    );
  checkProperty(
    'shuffle-sharding: queue choice',
    fc.property(choice, ({ hand, offset, work }) => {
      assert.is(
        chooseQueueIndex(hand, offset, work),
        referenceChooseQueue(hand, offset, (q) => work[q]!),
      );
    }),
    { runs: 300 },
  );
});

test('required entropy bits: the least b with deck^hand <= 2^b', () => {
  checkProperty(
    'shuffle-sharding: entropy bits',
    fc.property(fc.integer({ min: 1, max: 1 << 26 }), fc.integer({ min: 1, max: 15 }), (deckSize, handSize) => {
      const bits = requiredEntropyBits(deckSize, handSize);
      const hands = BigInt(deckSize) ** BigInt(handSize);
      assert.ok(hands <= 1n << BigInt(bits), `${deckSize}^${handSize} > 2^${bits}`);
      assert.ok(bits === 0 || hands > 1n << BigInt(bits - 1), `${deckSize}^${handSize} <= 2^${bits - 1}`);
    }),
    { runs: 500 },
  );
});

// --- uniformity ----------------------------------------------------------------------------------

/** Realistic level shapes: the suggested levels' (queues, hand) and an odd deck. */
const SHAPES: readonly Dealer[] = [
  { deckSize: 64, handSize: 8 },
  { deckSize: 128, handSize: 6 },
  { deckSize: 16, handSize: 4 },
  { deckSize: 7, handSize: 3 },
];
const FLOWS_PER_QUEUE = 40;

type DealFn = (dealer: Dealer, hash: bigint) => number[];

/**
 * Random flows (random distinguishers under a fixed FlowSchema) each send one request to an idle
 * level at a random rotation offset; every queue must receive about the same number.
 */
function uniformQueueChoice(dealFn: DealFn) {
  return fc.property(fc.integer(), (seed) => {
    const prng = createPrng(seed);
    for (const dealer of SHAPES) {
      const counts = new Array<number>(dealer.deckSize).fill(0);
      for (let i = 0; i < FLOWS_PER_QUEUE * dealer.deckSize; i++) {
        const hash = hashFlowId('global-default', `user-${prng.next().toString(36).slice(2)}`);
        const hand = dealFn(dealer, hash);
        // Idle queues all have zero waiting work, so the rotated hand's first queue is chosen.
        const chosen = chooseQueueIndex(hand, prng.int(dealer.handSize), () => 0n);
        counts[chosen]!++;
      }
      const statistic = chiSquareUniform(counts);
      const critical = chiSquareCritical(dealer.deckSize - 1);
      if (!(statistic <= critical)) {
        throw new Error(`deck ${dealer.deckSize}, hand ${dealer.handSize}: chi-square ${statistic.toFixed(1)} > ${critical.toFixed(1)}`);
      }
    }
  });
}

test('queue choice is uniform across random flows (chi-square, one-in-a-million tail)', () => {
  checkProperty('shuffle-sharding: uniform queue choice', uniformQueueChoice(deal), { runs: 8 });
});

test('control: a dealer that converts the hash to a float first fails the uniformity bound', () => {
  // Number(hash) keeps 53 bits: the low bits that `mod deck` reads are zeros for most hashes.
  const lossy: DealFn = (dealer, hash) => {
    const hand: number[] = [];
    let h = Number(hash);
    for (let i = 0; hand.length < dealer.handSize; i++) {
      const card = Math.floor(h % dealer.deckSize);
      hand.push(hand.includes(card) ? (card + i) % dealer.deckSize : card);
      h = Math.floor(h / dealer.deckSize);
    }
    return hand;
  };
  const details = expectPropertyToFail('control: lossy dealer', uniformQueueChoice(lossy), { runs: 3 });
  assert.match(String(details.errorInstance), /chi-square/);
});

test.run();
