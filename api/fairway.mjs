#!/usr/bin/env node
// The `fairway` command. Fairway runs its TypeScript sources directly through tsx (no build step),
// so `npm ci` is the whole installation.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
