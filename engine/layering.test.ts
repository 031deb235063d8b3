// House rule, checked mechanically: the folders are layers, and imports only go down. engine/ is the
// bottom (it knows nothing of who drives it); cli/ is the command-line layer over it; workers/ and
// sim/ build on both; api/ is the top and may use all of them, with no exception (the worker stages
// run the object semantics in engine/patch/ and engine/render/). And no module imports itself back
// through others: an import cycle anywhere (tests and benches included) fails here, naming its
// files in order. Test code (`*.test.ts`, `testing/`) obeys the layers as product code does: a test
// is a test of its own folder, so what it needs from above (a real server, the `fairway` launcher)
// means it belongs above, as `fairway sim`'s end-to-end tests sit in api/commands/. A module named by
// path to be run (`new URL('./worker.ts', import.meta.url)`: a worker's entry, a child process) is
// a dependency like an import. properties/ and bench/ are the test folders above everything.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
const TOP_DIRS = ['cli', 'engine', 'api', 'workers', 'sim', 'properties', 'bench'];

/** The top-level folders each product folder may import from (besides itself). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  engine: [],
  cli: ['engine'],
  workers: ['engine'],
  sim: ['engine', 'cli', 'workers'],
  api: ['engine', 'cli', 'workers', 'sim'],
};

const withoutComments = (source: string) =>
  source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .split('\n')
    .filter((line) => !/^\s*\/\//.test(line))
    .join('\n');

const fromRoot = (file: string, specifier: string) => posix.normalize(posix.join(posix.dirname(file), specifier));

/** The relative imports of a module (static, re-exports, side-effect and dynamic), as paths from the repository root. */
export function relativeImports(file: string, source: string): string[] {
  return [...withoutComments(source).matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.\.?\/[^'"]+)['"]/g)].map((m) => fromRoot(file, m[1]!));
}

/**
 * The modules a module names by path to run them (`new URL('./worker.ts', import.meta.url)`: a worker's
 * entry, a child process's). They count for the layers but not for cycles: a child importing its
 * parent's module is two processes, not a loop in loading.
 */
export function modulesRun(file: string, source: string): string[] {
  return [...withoutComments(source).matchAll(/\bnew URL\(\s*['"](\.\.?\/[^'"]+\.(?:ts|mts|mjs))['"]/g)].map((m) => fromRoot(file, m[1]!));
}

/** Every cycle the graph has, one per back edge a depth-first walk meets, as the files in import order. */
export function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      const seen = state.get(next);
      if (seen === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (seen === undefined) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** Imports that go up a layer, from product and test code alike. */
export function upwardImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const offences: string[] = [];
  for (const [file, imports] of graph) {
    const from = file.split('/')[0]!;
    const allowed = MAY_IMPORT[from];
    if (allowed === undefined) continue;
    for (const target of imports) {
      const to = target.split('/')[0]!;
      if (to === from || allowed.includes(to) || !(to in MAY_IMPORT)) continue;
      offences.push(`${file} imports ${target} (${from}/ may import only ${[from, ...allowed].map((d) => `${d}/`).join(', ')})`);
    }
  }
  return offences.sort();
}

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'data') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|mts|mjs)$/.test(name) && !name.endsWith('.d.ts')) yield path;
  }
}

/** Each module's imports (`graph`) and, for the layers, its imports and the modules it runs (`uses`). */
function scan(): { graph: Map<string, string[]>; uses: Map<string, string[]> } {
  const graph = new Map<string, string[]>();
  const uses = new Map<string, string[]>();
  for (const top of TOP_DIRS) {
    for (const path of sources(join(root, top))) {
      const file = relative(root, path).split('\\').join('/');
      const source = readFileSync(path, 'utf8');
      graph.set(file, relativeImports(file, source));
      uses.set(file, [...graph.get(file)!, ...modulesRun(file, source)]);
    }
  }
  return { graph, uses };
}

const { graph, uses } = scan();

test('no import cycle anywhere', () => {
  const cycles = findCycles(graph);
  assert.equal(
    cycles.map((c) => c.join(' → ')),
    [],
    `\n${cycles.map((c) => c.join(' → ')).join('\n')}`,
  );
});

test('no upward import, tests included: engine/ imports only engine/, cli/ and workers/ only engine/, sim/ nothing from api/', () => {
  const offences = upwardImports(uses);
  assert.equal(offences, [], `\n${offences.join('\n')}`);
});

test('the scan sees the modules and their imports (a scan that finds nothing checks nothing)', () => {
  assert.ok(graph.size > 400, `only ${graph.size} modules found`);
  assert.ok(graph.get('engine/store/store.ts')?.includes('engine/store/resource-store.ts'));
  assert.ok(graph.get('api/commands/main.ts')?.some((target) => target.startsWith('sim/')));
  assert.ok(uses.get('workers/piscina-executor.ts')?.includes('workers/worker-entry.mjs'), 'a module run by path is a use');
  assert.ok(graph.get('engine/store/testing/suite-crud.ts')?.includes('engine/store/testing/suite-kit.ts'), "engine/'s test code is scanned");
});

test('the import parser reads every form and skips comments', () => {
  const sample = [
    "import { a } from './a.ts';",
    "import type { B } from '../b.ts';",
    "export { c } from './c.ts';",
    "import './d.ts';",
    "const e = await import('./e.ts');",
    'import {',
    '  f,',
    "} from './f.ts';",
    "// import { g } from './g.ts';",
    "/* import { h } from './h.ts'; */",
    "import { readFileSync } from 'node:fs';",
  ].join('\n');
  assert.equal(relativeImports('engine/store/x.ts', sample), [
    'engine/store/a.ts',
    'engine/b.ts',
    'engine/store/c.ts',
    'engine/store/d.ts',
    'engine/store/e.ts',
    'engine/store/f.ts',
  ]);
  const runs = ["const child = fileURLToPath(new URL('../child.ts', import.meta.url));", "const data = new URL('./testdata/x.yaml', import.meta.url);"];
  assert.equal(modulesRun('engine/store/x.ts', runs.join('\n')), ['engine/child.ts']);
});

test('a cycle is found and named in order; an upward import is reported', () => {
  const cyclic = new Map([
    ['engine/a.ts', ['engine/b.ts']],
    ['engine/b.ts', ['engine/c.ts']],
    ['engine/c.ts', ['engine/a.ts']],
    ['engine/d.ts', ['engine/a.ts']],
  ]);
  assert.equal(findCycles(cyclic), [['engine/a.ts', 'engine/b.ts', 'engine/c.ts', 'engine/a.ts']]);
  assert.equal(
    findCycles(
      new Map([
        ['engine/a.ts', ['engine/b.ts']],
        ['engine/b.ts', []],
      ]),
    ),
    [],
  );
  const upward = new Map([
    ['engine/a.ts', ['api/x.ts', 'engine/b.ts']],
    ['sim/a.ts', ['api/x.ts', 'workers/y.ts']],
    ['engine/a.test.ts', ['sim/z.ts']],
    ['engine/store/testing/kit.ts', ['api/y.ts']],
    ['sim/a.test.ts', ['api/x.ts']],
  ]);
  assert.equal(upwardImports(upward), [
    'engine/a.test.ts imports sim/z.ts (engine/ may import only engine/)',
    'engine/a.ts imports api/x.ts (engine/ may import only engine/)',
    'engine/store/testing/kit.ts imports api/y.ts (engine/ may import only engine/)',
    'sim/a.test.ts imports api/x.ts (sim/ may import only sim/, engine/, cli/, workers/)',
    'sim/a.ts imports api/x.ts (sim/ may import only sim/, engine/, cli/, workers/)',
  ]);
});

test.run();
