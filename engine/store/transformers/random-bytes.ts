// The one place the encryption providers draw real randomness (IVs, nonces, DEKs, seeds, request
// UIDs). Like the real clock, it is a real-world source handed in as a dependency: every provider
// takes a `RandomBytes`, so tests can pin IVs to reproduce known-answer vectors byte for byte.
// Nonces and keys must never come from the seeded simulation PRNG: predictable nonces break GCM.

import { randomBytes } from 'node:crypto';

export type RandomBytes = (size: number) => Uint8Array;

/** The operating system's CSPRNG. */
export const secureRandomBytes: RandomBytes = (size) => new Uint8Array(randomBytes(size));

/** A version-4 UUID text from 16 random bytes (kube-apiserver tags each KMS call with one). */
export function randomUuid(random: RandomBytes): string {
  const b = random(16);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Buffer.from(b).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
