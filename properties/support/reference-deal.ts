// Shuffle sharding restated from KEP-1040's own wording, as an oracle for the engine's dealer:
// read the hash as mixed-radix digits A[0..H) in bases N, N−1, …; card i is the A[i]-th entry of
// the list of queue indices that are still in the deck. The engine steps each remainder over the
// earlier picks instead of keeping a list, so agreement between the two is a real check.

const UINT64_MASK = (1n << 64n) - 1n;

export function referenceDeal(deckSize: number, handSize: number, hashValue: bigint): number[] {
  let h = hashValue & UINT64_MASK;
  const deck = Array.from({ length: deckSize }, (_, i) => i);
  const hand: number[] = [];
  for (let i = 0; i < handSize; i++) {
    const base = BigInt(deckSize - i);
    const digit = Number(h % base);
    h /= base;
    hand.push(deck.splice(digit, 1)[0]!);
  }
  return hand;
}

/**
 * The queue a request joins (apf-semantics 5.5): visit the hand starting at `offset mod H`, keep
 * the first queue with strictly the least waiting work.
 */
export function referenceChooseQueue(hand: readonly number[], offset: number, waitingWork: (queueIndex: number) => bigint): number {
  const visit = hand.map((_, i) => hand[(offset + i) % hand.length]!);
  let best = visit[0]!;
  for (const q of visit.slice(1)) if (waitingWork(q) < waitingWork(best)) best = q;
  return best;
}
