#!/usr/bin/env node
// The `fairway` command. It runs the compiled JavaScript in dist/ (`npm ci` builds it), rebuilding
// it first when any source changed since (build.mjs says how that is decided), so it never runs
// code older than the sources. Under the test runner (FAIRWAY_TEST=1) it runs the TypeScript
// sources through tsx instead: tests exercise exactly the files they sit beside, and a test run
// never writes dist/. If dist/ cannot be built here (no esbuild, a read-only install), the sources
// through tsx are the fallback: slower to start, same behaviour.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DIST, MAIN, build, isFresh } from '../build.mjs';

async function compiledIsUsable() {
  if (isFresh()) return true;
  try {
    const ms = await build();
    process.stderr.write(`fairway: sources changed; rebuilt dist/ in ${Math.round(ms)} ms\n`);
    return true;
  } catch (error) {
    process.stderr.write(
      `fairway: could not build dist/ (${error instanceof Error ? error.message : String(error)}); running the TypeScript sources through tsx\n`,
    );
    return false;
  }
}

async function loadMain() {
  if (process.env.FAIRWAY_TEST !== '1' && (await compiledIsUsable())) {
    return (await import(pathToFileURL(join(DIST, MAIN)).href)).main;
  }
  const { register } = await import('tsx/esm/api');
  register();
  return (await import('./commands/main.ts')).main;
}

const main = await loadMain();
process.exitCode = await main(process.argv.slice(2));
