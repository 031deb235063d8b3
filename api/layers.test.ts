// api/'s own folders are layers too (docs/architecture.md, "Layers inside api/"): the request model
// at the bottom, the transports over it, handlers and filters over the request model alone (never a
// transport), and the assembly and commands on top. Product code only: a test may start a whole
// server through api/testing/.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';

const apiDir = fileURLToPath(new URL('.', import.meta.url));

/** The api/ folders each api/ folder's product code may import from (besides itself and api/'s root files). */
const MAY_IMPORT: Record<string, readonly string[]> = {
  request: [],
  transport: ['request'],
  'data-dir': [],
  top: [],
  openapi: ['request', 'discovery'],
  discovery: ['request', 'openapi'],
  filters: ['request'],
  handlers: ['request', 'discovery', 'openapi'],
  metrics: ['request', 'filters', 'discovery'],
  debug: ['request'],
  security: ['request', 'filters', 'handlers', 'data-dir'],
  assembly: ['request', 'transport', 'filters', 'handlers', 'metrics', 'debug', 'discovery', 'openapi', 'security'],
  commands: ['request', 'transport', 'data-dir', 'top', 'openapi', 'discovery', 'filters', 'handlers', 'metrics', 'debug', 'security', 'assembly'],
};
/** Test support and end-to-end suites, which may use everything. */
const TEST_FOLDERS = new Set(['testing', 'e2e']);

/** The api/ folder a path from api/ is in; '' for api/'s root files, which every folder may use and which use none. */
function folderOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

/** `imported` (a path from api/) breaks the rules for a module of `from`'s folder, as a message; undefined when allowed. */
export function violation(from: string, imported: string): string | undefined {
  if (imported.startsWith('../')) return undefined;
  const folder = folderOf(from);
  const target = folderOf(imported);
  if (target === folder) return undefined;
  if (target === '') return undefined;
  if (folder === '') return `api/${from} (api/'s root) imports api/${imported}`;
  if (MAY_IMPORT[folder]?.includes(target)) return undefined;
  return `api/${from} (${folder}/) imports api/${imported} (${target}/)`;
}

function* productFiles(dir: string, prefix: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!TEST_FOLDERS.has(entry.name)) yield* productFiles(join(dir, entry.name), path);
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) yield path;
  }
}

/** The relative imports of `source`, as paths from api/ (comments skipped). */
function importsOf(file: string, source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  return [...code.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.\.?\/[^'"]+)['"]/g)].map((m) => posix.normalize(posix.join(posix.dirname(file), m[1]!)));
}

test('every api/ folder imports only the folders below it', () => {
  const files = [...productFiles(apiDir, '')];
  assert.ok(files.includes('request/http-context.ts') && files.includes('assembly/assembled-server.ts'), 'the walk finds the api/ folders');
  for (const folder of new Set(files.map(folderOf))) {
    if (folder !== '') assert.ok(folder in MAY_IMPORT, `api/${folder}/ has its row in MAY_IMPORT`);
  }
  const found = files.flatMap((file) => importsOf(file, readFileSync(join(apiDir, file), 'utf8')).flatMap((imported) => violation(file, imported) ?? []));
  assert.equal(found, []);
});

test('the rules catch an import that goes up', () => {
  assert.ok(violation('request/respond.ts', 'handlers/resource.ts'));
  assert.ok(violation('request/response-body.ts', 'filters/priority-and-fairness.ts'));
  assert.ok(violation('handlers/body.ts', 'transport/http1-connection.ts'));
  assert.ok(violation('filters/priority-and-fairness.ts', 'transport/secure-server.ts'));
  assert.ok(violation('handlers/resource.ts', 'assembly/request-path.ts'));
  assert.ok(violation('log.ts', 'request/http-context.ts'));
  assert.is(violation('handlers/resource.ts', 'request/http-context.ts'), undefined);
  assert.is(violation('request/respond.ts', 'engine-errors.ts'), undefined);
  assert.is(violation('assembly/request-path.ts', '../engine/deadlines.ts'), undefined);
});

test.run();
