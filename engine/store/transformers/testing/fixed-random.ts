// Deterministic stand-ins for the CSPRNG in tests: exact bytes for known-answer vectors, or a
// seeded stream for property tests. Never for production: nonces must be unpredictable.

import { createHash } from 'node:crypto';
import type { RandomBytes } from '../random-bytes.ts';

/** Hands out the given chunks in order; each request must match the next chunk's length. */
export function queuedRandom(...chunks: Uint8Array[]): RandomBytes {
  const queue = [...chunks];
  return (size) => {
    const next = queue.shift();
    if (next === undefined) throw new Error(`queuedRandom: no bytes left for a request of ${size}`);
    if (next.length !== size) throw new Error(`queuedRandom: asked for ${size} bytes, next chunk has ${next.length}`);
    return Uint8Array.from(next);
  };
}

/** A reproducible byte stream (SHA-256 in counter mode over a seed). */
export function seededRandom(seed: string | number): RandomBytes {
  let counter = 0;
  return (size) => {
    const out = new Uint8Array(size);
    for (let offset = 0; offset < size; offset += 32) {
      const block = createHash('sha256').update(`${seed}:${counter++}`).digest();
      out.set(block.subarray(0, Math.min(32, size - offset)), offset);
    }
    return out;
  };
}

export const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'hex'));
export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
export const toHex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
export const toText = (bytes: Uint8Array): string => new TextDecoder().decode(bytes);
