// House rule, checked mechanically: every package in package.json is used, and docs/dependencies.md
// says why, one line each, for exactly the packages package.json names. A package that stays in
// package.json after its last import went (as `level` and `etcd3` did) fails here.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(fileURLToPath(new URL('.', import.meta.url)), '..');
/** This file: its samples below are not uses. */
const self = fileURLToPath(import.meta.url);
const SOURCE_DIRS = ['cli', 'engine', 'api', 'workers', 'sim', 'properties', 'bench', '.ci'];
/** Source files at the top level. */
const ROOT_SOURCES = ['build.mjs'];

/** Packages used without an import: where they are used instead, as text that file must contain. */
const USED_WITHOUT_IMPORT: Record<string, { file: string; text: string }> = {
  typescript: { file: '.ci/test.mjs', text: 'node_modules/typescript/' },
  '@types/node': { file: 'tsconfig.json', text: '"types": ["node"]' },
  '@biomejs/biome': { file: '.ci/test.mjs', text: 'node_modules/@biomejs/biome/' },
};

/** The packages a source file imports: `from 'x'`, `import 'x'`, `import('x')`, `require('x')`, outside comments. */
export function importedPackages(source: string): Set<string> {
  const found = new Set<string>();
  const specifier = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)['"]([^'"]+)['"]/g;
  for (const line of source.split('\n')) {
    if (/^\s*(\/\/|\*)/.test(line)) continue;
    for (const match of line.matchAll(specifier)) {
      const name = packageOf(match[1]!);
      if (name !== undefined) found.add(name);
    }
  }
  return found;
}

function packageOf(spec: string): string | undefined {
  if (spec.startsWith('.') || spec.startsWith('/') || spec.startsWith('node:')) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function* sources(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'data') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* sources(path);
    else if (/\.(ts|mjs|js)$/.test(name) && path !== self) yield path;
  }
}

const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const declared = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.devDependencies)].sort();

/** The packages docs/dependencies.md gives a line to: the bold names a bullet starts with. */
function documentedPackages(): string[] {
  const names: string[] = [];
  for (const line of readFileSync(join(root, 'docs/dependencies.md'), 'utf8').split('\n')) {
    const lead = /^- ((?:\*\*[^*]+\*\*(?:, | and )?)+)/.exec(line);
    if (lead === null) continue;
    for (const match of lead[1]!.matchAll(/\*\*([^*]+)\*\*/g)) names.push(match[1]!);
  }
  return names.sort();
}

test('every package in package.json is imported somewhere (or used where USED_WITHOUT_IMPORT says)', () => {
  const imported = new Set<string>();
  const files = [...SOURCE_DIRS.flatMap((dir) => [...sources(join(root, dir))]), ...ROOT_SOURCES.map((name) => join(root, name))];
  for (const file of files) for (const name of importedPackages(readFileSync(file, 'utf8'))) imported.add(name);
  const unused = declared.filter((name) => {
    if (imported.has(name)) return false;
    const elsewhere = USED_WITHOUT_IMPORT[name];
    return elsewhere === undefined || !readFileSync(join(root, elsewhere.file), 'utf8').includes(elsewhere.text);
  });
  assert.equal(unused, [], `in package.json but used nowhere: ${unused.join(', ')}`);
});

test('docs/dependencies.md has a line for exactly the packages in package.json', () => {
  const documented = documentedPackages();
  assert.equal(
    { undocumented: declared.filter((name) => !documented.includes(name)), notInPackageJson: documented.filter((name) => !declared.includes(name)) },
    { undocumented: [], notInPackageJson: [] },
  );
});

test('the import scan finds imports of every form and ignores comments and relative paths', () => {
  const sample = [
    "import { Level } from 'level';",
    "import * as grpc from '@grpc/grpc-js';",
    "import 'reflect-metadata';",
    "const m = await import('tsx/esm/api');",
    'const { x } = require("yaml");',
    "} from 'rxjs/operators';",
    "// import { Etcd3 } from 'etcd3';",
    "import { a } from './local.ts';",
    "import { readFileSync } from 'node:fs';",
  ].join('\n');
  assert.equal([...importedPackages(sample)].sort(), ['@grpc/grpc-js', 'level', 'reflect-metadata', 'rxjs', 'tsx', 'yaml']);
});

test.run();
