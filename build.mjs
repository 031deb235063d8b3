#!/usr/bin/env node
// The build: esbuild bundles the product (the `fairway` command, and the modules that Piscina
// threads run) into plain JavaScript in dist/, so that production starts without tsx and without
// resolving and loading a thousand small modules one by one. Types are only stripped: the type
// check is `npm test`'s job.
//
// Layout: every output file (entries and shared chunks) sits in dist/ itself, so that each source
// file's `import.meta.url` can be rewritten to the URL it would have in a copy of the source tree
// under dist/ (`dist/engine/kms/grpc-kms-client.js`). Paths taken relative to it then hold as in
// the sources: the build copies the files that code loads that way (every .proto) there, and
// writes a twin of each thread entry there (`dist/workers/worker-entry.mjs`) that imports the
// bundled task module instead of registering tsx.
//
// Packages: the pure-JavaScript ones on the start-up path are bundled (BUNDLED_PACKAGES); every
// other package stays an import from node_modules (native addons, packages that find files next to
// themselves, those loaded only by a command or a flag), so dist/ works only inside its checkout.
//
// Freshness: dist/.build.json records the mtime of every file the build read outside node_modules
// (esbuild's metafile), of the copied files, of package-lock.json and of this file. dist/ is fresh
// while each of them still has that mtime. `fairway` checks this on every start (a few ms) and
// rebuilds when stale, so a checkout never runs code older than its sources. A rebuild overwrites
// entries in place and adds chunks (content-hashed names) but deletes none: a server still running
// from the previous build may yet load one of its chunks. `npm run build` empties dist/ first.
//
// `node build.mjs`: build when stale. `--clean`: empty dist/ and build. `--outdir DIR`: build there.
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = dirname(fileURLToPath(import.meta.url));
export const DIST = join(ROOT, 'dist');
/** The command's entry: `fairway` imports its `main`. */
export const MAIN = 'main.js';
const STAMP = '.build.json';
/** The command's source entry; a tree without it is an installed package, not a checkout. */
const ENTRY = 'api/commands/main.ts';

/** Modules that Piscina threads load, each reached through a thread entry file that the code names relative to itself. */
const THREAD_ENTRIES = [
  { entry: 'workers/worker-entry.mjs', task: 'workers/worker-task.ts', exportName: 'runStageTask', out: 'thread-stage-task' },
  { entry: 'sim/sweep/worker.mjs', task: 'sim/sweep/task.ts', exportName: 'runSweepTask', out: 'thread-sweep-task' },
];
/** The folders of the product's sources. */
const SOURCE_DIRS = ['cli', 'engine', 'api', 'workers', 'sim'];
/** Non-code files that the code reads relative to its own location: copied to the same place under dist/. */
const isCopied = (path) => path.endsWith('.proto');
/** Inputs besides the sources: the build's own rules and the bundled packages' versions. */
const BUILD_INPUTS = ['build.mjs', 'tsconfig.json', 'package-lock.json'];
/** Pure-JavaScript packages loaded on the way to a ready server; bundling them halves start-up CPU. */
const BUNDLED_PACKAGES = new Set(['rxjs', 'xstate', 'yaml', 'prom-client', '@marcbachmann/cel-js', 're2js', 'tweetnacl', 'snappyjs']);

const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
const posix = (path) => path.split(sep).join('/');

/**
 * True when `outdir` holds a build whose every input still has the mtime it had when built, or
 * when the sources are not there at all: an installed package carries dist/ without the sources it
 * was built from (`npm pack` runs the build; package.json's `files`), so there is nothing it could
 * be older than and nothing to rebuild from.
 */
export function isFresh(root = ROOT, outdir = DIST) {
  let mtimes;
  try {
    mtimes = JSON.parse(readFileSync(join(outdir, STAMP), 'utf8')).mtimes;
  } catch {
    return false;
  }
  if (mtimes === null || typeof mtimes !== 'object' || Object.keys(mtimes).length === 0) return false;
  if (!existsSync(join(root, ENTRY))) return true;
  for (const [path, mtime] of Object.entries(mtimes)) {
    try {
      if (statSync(join(root, path)).mtimeMs !== mtime) return false;
    } catch {
      return false;
    }
  }
  return true;
}

/** Written under a temporary name, then renamed: a process starting meanwhile never reads half a file. */
function writeAtomic(path, contents) {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, path);
}

/** Each source file's `import.meta.url` becomes the URL of its place in a copy of the source tree under dist/. */
function sourceTreeUrls(root) {
  return {
    name: 'source-tree-urls',
    setup(build) {
      build.onLoad({ filter: /\.ts$/ }, (args) => {
        const source = readFileSync(args.path, 'utf8');
        if (args.path.includes(`${sep}node_modules${sep}`) || !source.includes('import.meta.url')) return undefined;
        const place = JSON.stringify(posix(relative(root, args.path)).replace(/\.ts$/, '.js'));
        return { contents: source.replaceAll('import.meta.url', `new URL(${place}, import.meta.url).href`), loader: 'ts' };
      });
    },
  };
}

/** Bare imports from our sources stay imports unless the package is in BUNDLED_PACKAGES; inside a bundled package everything is bundled. */
function packagesExternal(root) {
  const nodeModules = `${sep}node_modules${sep}`;
  return {
    name: 'packages-external',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind === 'entry-point' || args.path.startsWith('node:') || args.importer.includes(nodeModules)) return undefined;
        if (!args.importer.startsWith(root)) return undefined;
        return BUNDLED_PACKAGES.has(packageName(args.path)) ? undefined : { path: args.path, external: true };
      });
    },
  };
}

function copiedFiles(root) {
  const files = [];
  for (const dir of SOURCE_DIRS) {
    for (const entry of readdirSync(join(root, dir), { recursive: true, withFileTypes: true })) {
      const path = posix(relative(root, join(entry.parentPath, entry.name)));
      if (entry.isFile() && isCopied(path)) files.push(path);
    }
  }
  return files.sort();
}

/** Builds into `outdir`; resolves to the build's duration in milliseconds. */
export async function build(root = ROOT, outdir = DIST, options = {}) {
  const started = performance.now();
  const copied = copiedFiles(root);
  if (options.clean === true) rmSync(outdir, { recursive: true, force: true });
  const esbuild = await import('esbuild');
  let result;
  try {
    result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [{ in: ENTRY, out: MAIN.replace(/\.js$/, '') }, ...THREAD_ENTRIES.map((t) => ({ in: t.task, out: t.out }))],
      outdir,
      entryNames: '[name]',
      chunkNames: 'chunk-[hash]',
      bundle: true,
      splitting: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      tsconfig: join(root, 'tsconfig.json'),
      // Code bundled from CommonJS packages calls `require` (Node built-ins, packages left external).
      banner: { js: "import { createRequire as __fairwayCreateRequire } from 'node:module';\nconst require = __fairwayCreateRequire(import.meta.url);" },
      // No `keepNames`: it redefines `name` on every function object, closures made per request
      // included, which costs each of them a property store (about 250 bytes a closure kept by
      // an open watch). Nothing reads a function's or class's name; a name the bundle renamed to
      // avoid a clash only shows in stack traces.
      keepNames: false,
      plugins: [sourceTreeUrls(root), packagesExternal(root)],
      metafile: true,
      write: false,
      logLevel: 'silent',
    });
  } finally {
    // esbuild's service is a child process: a server started right after a rebuild must not keep it.
    await esbuild.stop();
  }
  for (const warning of result.warnings) process.stderr.write(`build: ${warning.text}\n`);

  // Recorded before writing: an edit made while esbuild ran shows as stale on the next start.
  const inputs = [
    ...Object.keys(result.metafile.inputs).filter((path) => !path.includes('node_modules/')),
    ...copied,
    ...THREAD_ENTRIES.map((t) => t.entry),
    ...BUILD_INPUTS,
  ];
  const mtimes = Object.create(null);
  for (const path of inputs) mtimes[posix(path)] = statSync(join(root, path)).mtimeMs;

  for (const file of result.outputFiles) writeAtomic(file.path, file.contents);
  for (const path of copied) writeAtomic(join(outdir, path), readFileSync(join(root, path)));
  for (const thread of THREAD_ENTRIES) {
    const twin = join(outdir, thread.entry);
    const task = posix(relative(dirname(twin), join(outdir, `${thread.out}.js`)));
    writeAtomic(twin, `// Written by build.mjs: the bundled twin of ${thread.entry}.\nexport { ${thread.exportName} as default } from '${task}';\n`);
  }
  // The bundle's .js files are ES modules wherever dist/ is.
  writeAtomic(join(outdir, 'package.json'), '{ "type": "module" }\n');
  writeAtomic(join(outdir, STAMP), `${JSON.stringify({ mtimes })}\n`);
  return performance.now() - started;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--outdir');
  const outdir = at >= 0 && args[at + 1] !== undefined ? args[at + 1] : DIST;
  const clean = args.includes('--clean');
  if (clean || !isFresh(ROOT, outdir)) {
    try {
      const ms = await build(ROOT, outdir, { clean });
      process.stdout.write(`built ${relative(process.cwd(), outdir) || '.'} in ${Math.round(ms)} ms\n`);
    } catch (error) {
      // esbuild's errors name file, line and column.
      process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  }
}
