// Shuffle sharding (apf-semantics 5.4, 5.5): a flow's 64-bit hash picks a hand of distinct queues
// out of the deck, and each request of the flow joins the least-loaded queue of that hand.

import { createHash } from 'node:crypto';
import { goLog2, toUint64 } from './go-math.ts';

export const MAX_HASH_BITS = 60;
/** Beyond this the remainders of a 64-bit hash stop being usefully uniform. */
export const MAX_DECK_SIZE = 1 << 26;

export interface Dealer {
  readonly deckSize: number;
  readonly handSize: number;
}

/** `ceil(log2(deck) * hand)`, in float64 as upstream computes it. */
export function requiredEntropyBits(deckSize: number, handSize: number): number {
  return Math.ceil(goLog2(deckSize) * handSize);
}

/**
 * Why `NewDealer(deckSize, handSize)` would refuse these sizes (the upstream error strings), or
 * `undefined` when they are acceptable.
 */
export function dealerParameterError(deckSize: number, handSize: number): string | undefined {
  if (!Number.isSafeInteger(deckSize) || !Number.isSafeInteger(handSize)) {
    return `deckSize ${String(deckSize)} or handSize ${String(handSize)} is not an integer`;
  }
  if (deckSize <= 0 || handSize <= 0) return `deckSize ${deckSize} or handSize ${handSize} is not positive`;
  if (handSize > deckSize) return `handSize ${handSize} is greater than deckSize ${deckSize}`;
  if (deckSize > MAX_DECK_SIZE) return `deckSize ${deckSize} is impractically large`;
  if (requiredEntropyBits(deckSize, handSize) > MAX_HASH_BITS) {
    return `required entropy bits of deckSize ${deckSize} and handSize ${handSize} is greater than ${MAX_HASH_BITS}`;
  }
  return undefined;
}

export function createDealer(deckSize: number, handSize: number): Dealer | { error: string } {
  const error = dealerParameterError(deckSize, handSize);
  return error === undefined ? { deckSize, handSize } : { error };
}

export function isDealer(x: Dealer | { error: string }): x is Dealer {
  return !('error' in x);
}

/**
 * The hand for a hash value, in pick order. The hash is read as a mixed-radix number with digits
 * in bases deck, deck−1, …; digit i chooses among the cards not yet dealt, which the second loop
 * turns into a card number by stepping over every earlier pick at or below it.
 */
export function deal(dealer: Dealer, hashValue: bigint): number[] {
  const remainders = dealRemainders(dealer, hashValue);
  const hand: number[] = [];
  for (let i = 0; i < remainders.length; i++) {
    let card = remainders[i]!;
    for (let j = i; j > 0; j--) {
      if (card >= remainders[j - 1]!) card++;
    }
    hand.push(card);
  }
  return hand;
}

/** Remainders of the mixed-radix decomposition (exposed for tests and debug output). */
export function dealRemainders(dealer: Dealer, hashValue: bigint): number[] {
  let h = toUint64(hashValue);
  const out: number[] = [];
  for (let i = 0; i < dealer.handSize; i++) {
    const base = BigInt(dealer.deckSize - i);
    out.push(Number(h % base));
    h /= base;
  }
  return out;
}

const SEPARATOR = Buffer.from([0]);

/** SHA-256 over `fsName ‖ 0x00 ‖ distinguisher` (UTF-8); the first 8 digest bytes, little-endian. */
export function hashFlowId(fsName: string, distinguisher: string): bigint {
  const digest = createHash('sha256').update(fsName, 'utf8').update(SEPARATOR).update(distinguisher, 'utf8').digest();
  return digest.readBigUInt64LE(0);
}

/**
 * The queue a new request joins: visit the hand rotated by `offset` (the queue set's enqueue
 * counter modulo the hand size) and keep the first queue whose waiting work is strictly smaller
 * than everything seen before, so ties go to the earliest visited. Returns the queue index.
 */
export function chooseQueueIndex(
  hand: readonly number[],
  offset: number,
  waitingWorkOf: readonly (bigint | number)[] | ((queueIndex: number) => bigint | number),
): number {
  const h = hand.length;
  if (h === 0) throw new RangeError('cannot choose a queue from an empty hand');
  const workOf = typeof waitingWorkOf === 'function' ? waitingWorkOf : (q: number) => waitingWorkOf[q] ?? 0;
  const start = ((offset % h) + h) % h;
  let best = hand[start]!;
  let bestWork = workOf(best);
  for (let i = 1; i < h; i++) {
    const q = hand[(start + i) % h]!;
    const w = workOf(q);
    if (w < bestWork) {
      best = q;
      bestWork = w;
    }
  }
  return best;
}
