// House rules, checked mechanically (after TigerBeetle's tidy.zig). No product code reads ambient
// time or randomness: the clock and the PRNG are injected, and only their own modules and the
// real-world adapters named below may touch the real thing. And comments say why, never which
// tracker issue a line came from.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
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

/**
 * Handing the real thing over uncalled (`random: Math.random`, `newUid: randomUUID`) leaks it as
 * surely as calling it. engine/ and sim/ take time and randomness injected, so there a mention is
 * banned too; api/ is where the real ones are injected from, so it may pass them on. Node's random
 * functions reach a file through an import, which is banned there for the names a module may also
 * give an injected function (`randomInt`).
 */
const BANNED_REFERENCES: { pattern: RegExp; instead: string }[] = [
  { pattern: /\bMath\.random\b(?!\s*\()/, instead: 'an injected Prng (engine/random.ts)' },
  { pattern: /\b(Date|performance)\.now\b(?!\s*\()/, instead: 'an injected clock' },
  { pattern: /\b(randomUUID|randomBytes|getRandomValues)\b(?!\s*\()/, instead: 'an injected Prng or an id source passed in' },
];
const CRYPTO_RANDOM_IMPORT = /\bimport\s*\{[^}]*\brandom\w*[^}]*\}\s*from\s*['"](node:)?crypto['"]/;
/** Where a mention of the real thing is banned, not only a call. */
const REFERENCES_SCANNED = ['engine', 'sim'];

/** Files that are the injected real-world sources themselves, or drive real processes, sockets and files. */
const ALLOWED = [
  /^engine\/clock(-adapters)?\.ts$/,
  /^engine\/random\.ts$/,
  // The one source of cryptographic randomness (IVs, nonces, DEKs); providers take it injected.
  /^engine\/store\/transformers\/random-bytes\.ts$/,
  /\.test\.ts$/,
  /\/testing\//,
  /^api\/e2e\//,
  /^sim\/(cli\/[^/]+|progress)\.ts$/, // the `fairway sim` commands time themselves for the operator
  // The commands run in a real process: `serve` builds the real clock, makes the admin token, and
  // gives a stuck shutdown a second; the storage commands stamp their backups.
  /^api\/commands\//,
  // Certificates: random serial numbers, validity from now.
  /^engine\/x509\/certificates\.ts$/,
  /^api\/security\/tls\.ts$/,
  // A private temporary file name beside the file being replaced.
  /^api\/data-dir\/atomic-write\.ts$/,
  // klog lines carry the wall time they were written at.
  /^api\/log\.ts$/,
  // Socket timing on real connections: idle HTTP/2 sessions, the RST-avoidance close delay, a
  // stalled response body's check.
  /^api\/(transport\/(secure-server|http1-connection)|request\/response-body)\.ts$/,
  // Real worker threads: waiting for the pool's threads to come up.
  /^workers\/piscina-executor\.ts$/,
];
/** The product's code: every folder the scan covers. */
const SCANNED = ['engine', 'sim', 'api', 'workers', 'cli'];
/** Where a comment citing a tracker issue is looked for: all code, tests and benches included. */
const ALL_CODE = [...SCANNED, 'properties', 'bench', '.ci'];
/** `issue 7`, `issues 3 and 4`, `Issue #12`: a tracker's numbers mean nothing to a reader of the code. */
const ISSUE_CITATION = /\b[Ii]ssues? #?\d+/;

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|mts|mjs)$/.test(name)) yield path;
  }
}

/** Each product file under `folders` that no ALLOWED entry names, with its path from the root and its text. */
function* policed(folders: readonly string[]): Generator<{ rel: string; text: string }> {
  for (const top of folders) {
    for (const file of sources(join(root, top))) {
      const rel = relative(root, file).split('\\').join('/');
      if (!ALLOWED.some((a) => a.test(rel))) yield { rel, text: readFileSync(file, 'utf8') };
    }
  }
}

/** `rel:line: code  → use …` for each code line (comments skipped) that a pattern matches. */
function bannedLines(rel: string, text: string, banned: readonly { pattern: RegExp; instead: string }[]): string[] {
  const offences: string[] = [];
  text.split('\n').forEach((line, i) => {
    if (/^\s*(\/\/|\*)/.test(line)) return;
    for (const { pattern, instead } of banned) if (pattern.test(line)) offences.push(`${rel}:${i + 1}: ${line.trim()}  → use ${instead}`);
  });
  return offences;
}

test('product code reads time and randomness only through the injected clock and PRNG (or is a named real-world adapter)', () => {
  const offences: string[] = [];
  for (const { rel, text } of policed(SCANNED)) offences.push(...bannedLines(rel, text, BANNED));
  assert.equal(offences, [], `\n${offences.join('\n')}`);
});

test('engine/ and sim/ do not even pass the real time or randomness on by reference', () => {
  const offences: string[] = [];
  for (const { rel, text } of policed(REFERENCES_SCANNED)) {
    offences.push(...bannedLines(rel, text, BANNED_REFERENCES));
    if (CRYPTO_RANDOM_IMPORT.test(text)) offences.push(`${rel}: imports randomness from node:crypto  → take it injected`);
  }
  assert.equal(offences, [], `\n${offences.join('\n')}`);
});

test('no comment cites a tracker issue number', () => {
  const offences: string[] = [];
  for (const top of ALL_CODE) {
    for (const file of sources(join(root, top))) {
      const rel = relative(root, file).split('\\').join('/');
      if (rel === 'engine/tidy.test.ts') continue;
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (ISSUE_CITATION.test(line)) offences.push(`${rel}:${i + 1}: ${line.trim()}`);
        });
    }
  }
  assert.equal(offences, [], `\nsay why instead:\n${offences.join('\n')}`);
});

/** The formatter's line width (biome.json), which it cannot keep for string, template and regex literals: those are split by hand. */
const LINE_WIDTH = (JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8')) as { formatter: { lineWidth: number } }).formatter.lineWidth;

/** 1-based numbers of the lines longer than `width` characters (code points, as the formatter counts them). */
function overlongLines(text: string, width: number): number[] {
  const numbers: number[] = [];
  text.split('\n').forEach((line, i) => {
    if (line.length > width && [...line].length > width) numbers.push(i + 1);
  });
  return numbers;
}

test("no line of tracked code is longer than the formatter's line width", () => {
  const tracked = execFileSync('git', ['ls-files', '-z', '--', '*.ts', '*.mjs', '*.js'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean);
  assert.ok(tracked.length > 100, 'git lists the tracked sources');
  const offences = tracked.flatMap((rel) => overlongLines(readFileSync(join(root, rel), 'utf8'), LINE_WIDTH).map((n) => `${rel}:${n}`));
  assert.equal(offences, [], `\nsplit the literal ('…' + '…', a joined array of lines, new RegExp of pieces):\n${offences.join('\n')}`);
});

// The type checker keeps the rest honest: an optional property that may hold undefined says so
// (exactOptionalPropertyTypes), because `{ a: undefined }` and `{}` differ for msgpack, structured
// clone and deep equality.
test('the type checker runs with the strictness the code is written for', () => {
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
  const flags = ['strict', 'noUncheckedIndexedAccess', 'exactOptionalPropertyTypes', 'noUnusedLocals', 'noUnusedParameters', 'noImplicitOverride'];
  assert.equal(
    flags.filter((flag) => compilerOptions[flag] !== true),
    [],
  );
});

test('the scans themselves catch a banned call and an issue citation', () => {
  assert.ok(ISSUE_CITATION.test('// until authorizers exist (issue 7)'));
  assert.ok(ISSUE_CITATION.test('/** see Issues #12 and #13 */'));
  assert.not.ok(ISSUE_CITATION.test('// the issuer of the certificate, 7 days'));
  assert.ok(ALLOWED.some((a) => a.test('api/commands/serve.ts')));
  assert.not.ok(ALLOWED.some((a) => a.test('api/assembly/assembled-server.ts')));

  assert.equal(LINE_WIDTH, 160);
  assert.equal(overlongLines(`short\n${'x'.repeat(161)}\n${'é'.repeat(160)}\n`, 160), [2]);

  const sample = 'const t = Date.now();';
  assert.ok(BANNED.some(({ pattern }) => pattern.test(sample)));
  assert.not.ok(BANNED.some(({ pattern }) => pattern.test('const t = clock.now();')));

  const referenced = (line: string) => bannedLines('x.ts', line, BANNED_REFERENCES).length > 0;
  assert.ok(referenced('    random: Math.random,'));
  assert.ok(referenced('  { clock, newUid: randomUUID, apiDomain },'));
  assert.ok(referenced('const now = performance.now.bind(performance);'));
  assert.not.ok(referenced('const x = Math.random();'), 'a call is the other check');
  assert.not.ok(referenced('  randomInt: (n: number) => number;'), 'an injected function may be called randomInt');
  assert.ok(CRYPTO_RANDOM_IMPORT.test("import { createHash,\n  randomInt } from 'node:crypto';"));
  assert.not.ok(CRYPTO_RANDOM_IMPORT.test("import { createHash } from 'node:crypto';"));
  assert.not.ok(REFERENCES_SCANNED.includes('api'), 'api/ passes the real ones on');
});

test.run();
