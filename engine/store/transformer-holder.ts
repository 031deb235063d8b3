// A store's transformer that can be replaced while the store runs (automatic reload of the
// encryption configuration). The store reads `current` once per operation, so one operation uses
// one transformer from start to end. `generation` counts the swaps: it is how the store learns that
// what it read or wrote before a swap may no longer be in the write format (see StoreCore.isStale).

import type { Transformer } from './transformers/transformer.ts';

export interface TransformerHolder {
  readonly current: Transformer;
  readonly generation: number;
  swap(next: Transformer): void;
}

export function createTransformerHolder(initial: Transformer): TransformerHolder {
  let current = initial;
  let generation = 0;
  return {
    get current() {
      return current;
    },
    get generation() {
      return generation;
    },
    swap(next) {
      current = next;
      generation++;
    },
  };
}

export function isTransformerHolder(value: Transformer | TransformerHolder): value is TransformerHolder {
  return typeof (value as Partial<TransformerHolder>).swap === 'function';
}
