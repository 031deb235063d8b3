// House rule, checked mechanically (after TigerBeetle's tidy.zig): engine/ and sim/ never read
// ambient time or randomness. The clock and the PRNG are injected; only their own modules and
// the real-world adapters named below may touch the real thing.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');

const BANNED: { pattern: RegExp; instead: string }[] = [
  { pattern: /\bDate\.now\s*\(/, instead: 'clock.now()' },
  { pattern: /\bnew Date\(\s*\)/, instead: 'clock.now()' },
  { pattern: /\bperformance\.now\s*\(/, instead: 'clock.now()' },
  { pattern: /\bprocess\.hrtime\b/, instead: 'clock.now()' },
  { pattern: /\bMath\.random\s*\(/, instead: 'an injected Prng (engine/random.ts)' },
  { pattern: /\b(setTimeout|setInterval|setImmediate)\s*\(/, instead: 'clock.after(ms, callback)' },
  { pattern: /\b(randomUUID|randomBytes|getRandomValues)\s*\(/, instead: 'an injected Prng or an id source passed in' },
];

/** Files that are the injected real-world sources themselves, or drive real processes. */
const ALLOWED = [
  /^engine\/clock(-adapters)?\.ts$/,
  /^engine\/random\.ts$/,
  // The one source of cryptographic randomness (IVs, nonces, DEKs); providers take it injected.
  /^engine\/store\/transformers\/random-bytes\.ts$/,
  /\.test\.ts$/, /\/testing\//, /^sim\/(cli|progress)[^/]*\.ts$/];

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

test('engine/ and sim/ read time and randomness only through the injected clock and PRNG', () => {
  const offences: string[] = [];
  for (const top of ['engine', 'sim']) {
    for (const file of sources(join(root, top))) {
      const rel = relative(root, file).split('\\').join('/');
      if (ALLOWED.some((a) => a.test(rel))) continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (/^\s*(\/\/|\*)/.test(line)) return;
          for (const { pattern, instead } of BANNED) {
            if (pattern.test(line)) offences.push(`${rel}:${i + 1}: ${line.trim()}  → use ${instead}`);
          }
        });
    }
  }
  assert.equal(offences, [], `\n${offences.join('\n')}`);
});

test('the scan itself catches a banned call', () => {
  const sample = 'const t = Date.now();';
  assert.ok(BANNED.some(({ pattern }) => pattern.test(sample)));
  assert.not.ok(BANNED.some(({ pattern }) => pattern.test('const t = clock.now();')));
});

test.run();
