// The engine's only source of randomness: a small, fast, seeded PRNG (sfc32), so a seed replays
// a run byte for byte. Seeds are a decimal integer or any string (CI passes a commit hash);
// the seed text is folded into the 128-bit state with an FNV-1a pass and a murmur finaliser.

export interface Prng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [0, bound). */
  int(bound: number): number;
  /** A new generator whose stream is independent of this one's later draws. */
  fork(label: string): Prng;
}

export function createPrng(seed: number | string): Prng {
  return fromState(seedState(String(seed)));
}

/** One sfc32 step (Chris Doty-Humphrey): advances the state, returns 32 random bits. */
function step(s: Uint32Array): number {
  const t = (((s[0]! + s[1]!) | 0) + s[3]!) | 0;
  s[3] = (s[3]! + 1) | 0;
  s[0] = s[1]! ^ (s[1]! >>> 9);
  s[1] = (s[2]! + (s[2]! << 3)) | 0;
  s[2] = (s[2]! << 21) | (s[2]! >>> 11);
  s[2] = (s[2]! + t) | 0;
  return t >>> 0;
}

function fromState(s: Uint32Array): Prng {
  return {
    next: () => step(s) / 4294967296,
    int: (bound) => Math.floor((step(s) / 4294967296) * bound),
    fork: (label) => fromState(seedState(`${step(s)}:${label}`)),
  };
}

function seedState(text: string): Uint32Array {
  let h = 2166136261;
  const state = new Uint32Array(4);
  for (let round = 0; round < 4; round++) {
    for (let i = 0; i < text.length; i++) {
      h ^= text.charCodeAt(i);
      h = Math.imul(h, 16777619);
    }
    h ^= round + 0x9e3779b9;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
    h ^= h >>> 16;
    state[round] = h >>> 0;
  }
  // Warm up so that similar seeds diverge before the first draw.
  for (let i = 0; i < 12; i++) step(state);
  return state;
}
