// What the offline `fairway storage …` commands share (`startStorageCommand`): their flag parsing (kube-style `--name value`
// or `--name=value`, errors naming the flag), where the LevelDB store of a `--data-dir` is, and the
// transformer an `--encryption-provider-config` gives for reading or writing stored values.

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { realClock } from '../../engine/clock.ts';
import { formatEncryptionConfigError, loadEncryptionConfig } from '../../engine/config/encryption-config.ts';
import { createResourceTransformers, routeByStorageKey, type ResourceTransformers } from '../../engine/store/transformers/resource-transformers.ts';
import type { Transformer } from '../../engine/store/transformers/transformer.ts';
import { DEFAULT_API_DOMAIN } from '../../engine/resources/api-domain.ts';
import type { Output } from './config-check.ts';
import { storedResources } from '../encryption-at-rest.ts';
import { ownValue } from '../../engine/own-property.ts';

type ParsedFlags<K extends string> = { values: Record<K, string> } | { help: true } | { error: string };

/** Parses `args` against `flags` (flag name → field); `--data-dir` must not be empty. */
function parseStorageFlags<K extends string>(args: readonly string[], flags: Readonly<Record<string, K>>, defaults: Readonly<Record<K, string>>): ParsedFlags<K> {
  const values: Record<K, string> = { ...defaults };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '-h' || arg === '--help') return { help: true };
    if (!arg.startsWith('--')) return { error: `unexpected argument ${JSON.stringify(arg)}` };
    const eq = arg.indexOf('=');
    const name = (eq < 0 ? arg.slice(2) : arg.slice(2, eq)).replaceAll('_', '-');
    const key = ownValue(flags, name);
    if (key === undefined) return { error: `unknown flag: --${name}` };
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined) return { error: `flag needs an argument: --${name}` };
    values[key] = value;
  }
  if ((values as Record<string, string>)['dataDir'] === '') return { error: '--data-dir must not be empty' };
  return { values };
}

/** The LevelDB directory of a data dir, or the error naming `--data-dir` when there is none. */
function storeLocation(dataDir: string): { location: string } | { error: string } {
  if (!existsSync(dataDir) || !statSync(dataDir).isDirectory()) return { error: `--data-dir ${JSON.stringify(dataDir)}: no such directory` };
  const location = join(dataDir, 'store');
  // LevelDB would create an empty database here; a wrong --data-dir must say so instead.
  if (!existsSync(location)) return { error: `--data-dir ${JSON.stringify(dataDir)} holds no Fairway store (expected a LevelDB database at ${location})` };
  return { location };
}

/** The transformer of an EncryptionConfiguration file, routed by storage key as the server does. */
async function loadStorageTransformer(
  file: string,
  apiDomain: string,
): Promise<{ ok: true; transformer: Transformer; transformers: ResourceTransformers } | { ok: false; error: string }> {
  const loaded = await loadEncryptionConfig(file, { apiDomain });
  if (!loaded.ok) return { ok: false, error: formatEncryptionConfigError(loaded.error) };
  try {
    const transformers = await createResourceTransformers(loaded.value, { clock: realClock() });
    return { ok: true, transformer: routeByStorageKey(transformers, storedResources(apiDomain)), transformers };
  } catch (error) {
    return { ok: false, error: `${file}: error while building transformers: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** What `storage check` and `storage repair` start from: their flags, the store, its transformer. */
export interface StorageCommand<K extends string> {
  readonly values: Record<K | 'dataDir' | 'config' | 'apiDomain', string>;
  readonly location: string;
  /** Reads encrypted values when --encryption-provider-config was given. */
  readonly transformer: Transformer | undefined;
  close(): void;
}

/**
 * Parses the flags (`--data-dir`, `--encryption-provider-config`, `--api-domain` and `extra`),
 * finds the store and loads the transformer; on a problem prints it and returns the exit code.
 */
export async function startStorageCommand<K extends string>(
  args: readonly string[],
  extra: Readonly<Record<string, K>>,
  usage: string,
  output: Output,
): Promise<StorageCommand<K> | { exitCode: number }> {
  const flags = { 'data-dir': 'dataDir', 'encryption-provider-config': 'config', 'api-domain': 'apiDomain', ...extra } as Record<string, K | 'dataDir' | 'config' | 'apiDomain'>;
  const defaults = { dataDir: './data', config: '', apiDomain: DEFAULT_API_DOMAIN, ...Object.fromEntries(Object.values(extra).map((k) => [k, ''])) } as Record<K | 'dataDir' | 'config' | 'apiDomain', string>;
  const parsed = parseStorageFlags(args, flags, defaults);
  if ('help' in parsed) {
    output.stdout(usage);
    return { exitCode: 0 };
  }
  if ('error' in parsed) {
    output.stderr(`Error: ${parsed.error}\n${usage}`);
    return { exitCode: 2 };
  }
  const where = storeLocation(parsed.values.dataDir);
  if ('error' in where) {
    output.stderr(`Error: ${where.error}\n`);
    return { exitCode: 1 };
  }
  if (parsed.values.config === '') return { values: parsed.values, location: where.location, transformer: undefined, close: () => undefined };
  const loaded = await loadStorageTransformer(parsed.values.config, parsed.values.apiDomain);
  if (!loaded.ok) {
    output.stderr(`Error: ${loaded.error}\n`);
    return { exitCode: 1 };
  }
  return { values: parsed.values, location: where.location, transformer: loaded.transformer, close: () => loaded.transformers.close() };
}
