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
// Inside a folder, its sub-folders are layers too: `PARTS` below says what each builds on, and an
// import against it fails naming the file, the import and the row it breaks.
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

/**
 * Inside a top folder, what each part builds on: it may import those parts and, in turn, what they build
 * on; nothing else of its folder. A part is a sub-folder; `.` is the folder's own files, with its
 * `testing/` (a `testing/` folder is part of the part it sits in). Test code obeys the same rows.
 */
const PARTS: Record<string, Record<string, readonly string[]>> = {
  engine: {
    '.': [], // the utilities: time, randomness, Go's formats and integers, shuffle sharding, small structures
    x509: ['.'],
    resources: ['.'], // the kinds' tables and types, field errors, validation, defaults
    status: ['resources'], // the errors the API sends, as Status
    request: ['status'], // what a request targets, and its body decoded
    config: ['resources'], // configuration files: manifests, encryption, the flowcontrol kinds
    kms: ['config'],
    store: ['kms'],
    auth: ['config', 'request', 'x509'], // authentication, authorization (and its configuration), admission
    flowcontrol: ['auth', 'store'],
    patch: ['request', 'store'], // the object semantics of a write
    protobuf: ['patch', 'flowcontrol'],
    render: ['protobuf'],
    registry: ['auth', 'patch'],
  },
  cli: { '.': [] },
  workers: { '.': [] },
  sim: {
    '.': [], // the core: scenario, simulation, metrics, the report and run-digest models
    import: ['.'], // a scenario from a live cluster
    report: ['.'], // the report's pages
    tune: ['report'], // objectives, candidates, the search
    explain: ['tune'], // why flows suffered, and suggestions tried as tune candidates
    run: ['explain'], // one run: simulated, reported, explained
    sweep: ['run'],
    compare: ['sweep'],
    cli: ['compare', 'import'], // the `fairway sim` commands
    examples: ['cli'],
  },
  // api/'s own files (the logger, engine errors as Status) and its testing/ (clients, load, the bad-input
  // corpus) are the bottom; what runs `fairway` as a process sits in commands/testing/, with the
  // launcher. The request model, then the transports over it; filters and handlers over the request
  // model alone (never a transport); the assembly and the commands on top. integration/ holds the
  // tests that need the whole server in process; e2e/ (its own CI lane) drives it as a process.
  api: {
    '.': [],
    'data-dir': ['.'],
    top: ['.'],
    schemas: ['.'], // OpenAPI component schemas, served in discovery and the OpenAPI documents
    request: ['.'],
    transport: ['request'],
    discovery: ['request', 'schemas'],
    openapi: ['discovery'],
    filters: ['request'],
    handlers: ['request', 'openapi'],
    metrics: ['filters', 'discovery'],
    debug: ['metrics'],
    security: ['data-dir', 'filters', 'handlers'],
    assembly: ['security', 'metrics', 'debug', 'transport'],
    commands: ['assembly', 'top', 'data-dir'],
    integration: ['assembly'],
    e2e: ['commands', 'integration'],
  },
};

/** The folders whose every part has a row. */
const COMPLETE = ['engine', 'cli', 'workers', 'sim', 'api'];

/** Files whose part is not their folder's: the `fairway` launcher is the commands' entry, in api/ because package.json's bin names it. */
const PLACED: Record<string, string> = { 'api/fairway.mjs': 'commands' };

/** The part of its top folder a file belongs to. */
export function partOf(file: string): string {
  const placed = PLACED[file];
  if (placed !== undefined) return placed;
  const segments = file.split('/');
  return segments.length <= 2 || segments[1] === 'testing' ? '.' : segments[1]!;
}

const partName = (top: string, part: string) => (part === '.' ? `${top}/'s own files` : `${top}/${part}`);

/** For each part of a table, every part beneath it; a part the walk meets again while below itself is a cycle in the table. */
export function partsBeneath(table: Record<string, readonly string[]>): { beneath: Map<string, Set<string>>; cycles: string[] } {
  const beneath = new Map<string, Set<string>>();
  const cycles: string[] = [];
  const open = new Set<string>();
  const walk = (part: string): Set<string> => {
    const known = beneath.get(part);
    if (known !== undefined) return known;
    if (open.has(part)) {
      cycles.push(part);
      return new Set();
    }
    open.add(part);
    const below = new Set<string>();
    for (const next of table[part] ?? []) {
      below.add(next);
      for (const deeper of walk(next)) below.add(deeper);
    }
    open.delete(part);
    beneath.set(part, below);
    return below;
  };
  for (const part of Object.keys(table)) walk(part);
  return { beneath, cycles };
}

/** Imports between two parts of a folder that its table does not allow, each naming the rule it breaks. */
export function crossPartImports(graph: ReadonlyMap<string, readonly string[]>, parts = PARTS): string[] {
  const offences: string[] = [];
  const beneath = new Map(Object.entries(parts).map(([top, table]) => [top, partsBeneath(table).beneath]));
  for (const [file, imports] of graph) {
    const top = file.split('/')[0]!;
    const from = partOf(file);
    const below = beneath.get(top)?.get(from);
    if (below === undefined) continue;
    for (const target of imports) {
      const to = partOf(target);
      if (target.split('/')[0] !== top || to === from || below.has(to) || !(to in parts[top]!)) continue;
      const row = `PARTS.${top}['${from}'] is [${parts[top]![from]!.map((p) => `'${p}'`).join(', ')}]`;
      offences.push(`${file} imports ${target} (${row}: ${partName(top, to)} is not beneath ${partName(top, from)})`);
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

test('no import between parts of a folder against its table (engine/ sub-packages, sim/, api/; tests included)', () => {
  const offences = crossPartImports(uses);
  assert.equal(offences, [], `\n${offences.join('\n')}`);
});

test('each table is a layering (no part builds on itself) and names only parts it has', () => {
  for (const [top, table] of Object.entries(PARTS)) {
    assert.equal(partsBeneath(table).cycles, [], `${top}/'s table has a cycle`);
    for (const [part, below] of Object.entries(table)) {
      for (const p of below) assert.ok(p in table, `${top}/${part} builds on ${top}/${p}, which has no row`);
    }
  }
});

test('every part of every product folder has a row', () => {
  const missing = [...uses.keys()]
    .filter((file) => COMPLETE.includes(file.split('/')[0]!) && !(partOf(file) in PARTS[file.split('/')[0]!]!))
    .map((file) => `${file.split('/')[0]}/${partOf(file)}`);
  assert.equal([...new Set(missing)], [], 'a new sub-folder needs its row in PARTS');
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

test("an import against a folder's table names the file, the import and the rule; a table with a cycle is found", () => {
  const table = { engine: { '.': [], resources: ['.'], status: ['resources'], store: ['resources'] } };
  const graph = new Map([
    ['engine/resources/decode.ts', ['engine/status/errors.ts', 'engine/go-format.ts']],
    ['engine/status/errors.ts', ['engine/resources/types.ts', 'engine/clock.ts']],
    ['engine/go-integer.test.ts', ['engine/store/list-options.ts', 'engine/testing/kit.ts']],
    ['engine/store/testing/kit.ts', ['engine/status/errors.ts']],
    ['engine/x509/certificates.ts', ['engine/status/errors.ts']],
    ['sim/report.ts', ['sim/explain/remedy.ts']],
  ]);
  assert.equal(crossPartImports(graph, table), [
    "engine/go-integer.test.ts imports engine/store/list-options.ts (PARTS.engine['.'] is []: engine/store is not beneath engine/'s own files)",
    "engine/resources/decode.ts imports engine/status/errors.ts (PARTS.engine['resources'] is ['.']: engine/status is not beneath engine/resources)",
    "engine/store/testing/kit.ts imports engine/status/errors.ts (PARTS.engine['store'] is ['resources']: engine/status is not beneath engine/store)",
  ]);
  assert.equal(partsBeneath({ a: ['b'], b: ['c'], c: ['a'] }).cycles, ['a']);
  assert.equal([...partsBeneath(table.engine).beneath.get('status')!].sort(), ['.', 'resources']);
  assert.is(partOf('engine/testing/kit.ts'), '.');
  assert.is(partOf('engine/store/leveldb/x.ts'), 'store');
});

test("api/'s rows catch an import that goes up, from product and test code, and allow the ones that go down", () => {
  const graph = new Map([
    ['api/request/respond.ts', ['api/handlers/resource.ts', 'api/engine-errors.ts']],
    ['api/handlers/body.ts', ['api/transport/http1-connection.ts', 'api/request/http-context.ts']],
    ['api/filters/priority-and-fairness.ts', ['api/transport/secure-server.ts', 'api/request/respond.ts']],
    ['api/handlers/resource.test.ts', ['api/integration/testing/in-process.ts', 'api/testing/http-client.ts']],
    ['api/log.ts', ['api/request/http-context.ts']],
    ['api/testing/load.ts', ['api/assembly/assembled-server.ts']],
    ['api/assembly/request-path.ts', ['engine/deadlines.ts', 'api/filters/authentication.ts', 'api/request/respond.ts']],
    ['api/fairway.mjs', ['api/commands/main.ts']],
    ['api/commands/sim.test.ts', ['api/fairway.mjs']],
    ['api/e2e/top.test.ts', ['api/fairway.mjs', 'api/integration/testing/in-process.ts']],
  ]);
  assert.equal(
    crossPartImports(graph).map((offence) => offence.slice(0, offence.indexOf(' ('))),
    [
      'api/filters/priority-and-fairness.ts imports api/transport/secure-server.ts',
      'api/handlers/body.ts imports api/transport/http1-connection.ts',
      'api/handlers/resource.test.ts imports api/integration/testing/in-process.ts',
      'api/log.ts imports api/request/http-context.ts',
      'api/request/respond.ts imports api/handlers/resource.ts',
      'api/testing/load.ts imports api/assembly/assembled-server.ts',
    ],
  );
});

test('the launcher is part of commands/, and a testing/ folder part of the part it sits in', () => {
  assert.is(partOf('api/fairway.mjs'), 'commands');
  assert.is(partOf('api/commands/testing/server-process.ts'), 'commands');
  assert.is(partOf('api/integration/testing/in-process.ts'), 'integration');
  assert.is(partOf('api/testing/http-client.ts'), '.');
  assert.is(partOf('api/log.ts'), '.');
});

test.run();
