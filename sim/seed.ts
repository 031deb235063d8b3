// Seeds: a decimal integer (`42`) or a 40-hex string such as a git commit hash, which CI passes so
// that every run differs yet replays from the commit alone (TigerBeetle's `parse_seed`). The seed
// text itself is what the PRNG folds, so `SEED=<text>` is all it takes to replay a run.

import { createPrng, type Prng } from '../engine/random.ts';

export type SeedParse = { ok: true; seed: string } | { ok: false; message: string };

const DECIMAL = /^(0|[1-9][0-9]{0,15})$/;
const HEX40 = /^[0-9a-fA-F]{40}$/;

export function parseSeed(text: string): SeedParse {
  const trimmed = text.trim();
  if (DECIMAL.test(trimmed) && Number.isSafeInteger(Number(trimmed))) return { ok: true, seed: trimmed };
  // Lower-cased so that a hash copied in either case replays the same run.
  if (HEX40.test(trimmed)) return { ok: true, seed: trimmed.toLowerCase() };
  return { ok: false, message: `invalid seed ${JSON.stringify(text)}: want a decimal integer (0 to 2^53-1) or 40 hex digits (e.g. a commit hash)` };
}

/**
 * A list of seeds for a sweep: `1..50` (inclusive), `1,2,7`, or a mix (`1..3,10`); hex seeds are
 * allowed as single items. At most `maxCount` seeds.
 */
export function parseSeedList(text: string, maxCount = 100_000): { ok: true; seeds: string[] } | { ok: false; message: string } {
  const seeds: string[] = [];
  for (const part of text.split(',')) {
    const range = /^\s*(\d+)\s*\.\.\s*(\d+)\s*$/.exec(part);
    if (range !== null) {
      const from = parseSeed(range[1]!);
      const to = parseSeed(range[2]!);
      if (!from.ok) return from;
      if (!to.ok) return to;
      const first = Number(from.seed);
      const last = Number(to.seed);
      if (last < first) return { ok: false, message: `invalid seed range ${JSON.stringify(part.trim())}: ${last} < ${first}` };
      if (seeds.length + (last - first + 1) > maxCount) return { ok: false, message: `too many seeds (more than ${maxCount})` };
      for (let s = first; s <= last; s++) seeds.push(String(s));
      continue;
    }
    const single = parseSeed(part);
    if (!single.ok) return single;
    seeds.push(single.seed);
    if (seeds.length > maxCount) return { ok: false, message: `too many seeds (more than ${maxCount})` };
  }
  if (seeds.length === 0) return { ok: false, message: 'no seeds given' };
  return { ok: true, seeds };
}

/**
 * The PRNG of one named stream of a run (a flow, the audit replay). Derived from the seed text and
 * the name only, never from another stream's draws, so adding or reordering flows leaves every
 * other flow's arrivals and service times exactly as they were.
 */
export function streamPrng(seed: string, streamName: string): Prng {
  return createPrng(`${seed}\u0000${streamName}`);
}
