// What the offline `fairway storage …` commands share (`startStorageCommand`): their flags
// (STORAGE_FLAGS, parsed by the command-line layer), where the LevelDB store of a `--data-dir` is,
// and the transformer an `--encryption-provider-config` gives for reading or writing stored values.

import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandLine, type CommandSpec, type Output } from '../../cli/command.ts';
import { flag, type FlagTable, type FlagValues } from '../../cli/flag-table.ts';
import { realClock } from '../../engine/clock.ts';
import { formatEncryptionConfigError, loadEncryptionConfig } from '../../engine/config/encryption-config.ts';
import { createResourceTransformers, routeByStorageKey, type ResourceTransformers } from '../../engine/store/transformers/resource-transformers.ts';
import type { Transformer } from '../../engine/store/transformers/transformer.ts';
import { storedResources } from '../security/encryption-at-rest.ts';
import { API_DOMAIN_FLAG, DATA_DIR_FLAG } from './serve-flags.ts';

/** The flags of every storage command; `extra` adds a command's own. */
export const STORAGE_FLAGS = {
  dataDir: { ...DATA_DIR_FLAG, description: "the server's --data-dir; LevelDB only" },
  config: flag('string', 'encryption-provider-config', '', 'decode encrypted values too (without it they are only counted)', { valueName: 'FILE' }),
  apiDomain: { ...API_DOMAIN_FLAG, description: 'as fairway serve --api-domain' },
};

export type StorageFlags = typeof STORAGE_FLAGS;

/** The LevelDB directory of a data dir, or the error naming `--data-dir` when there is none. */
function storeLocation(dataDir: string): { location: string } | { error: string } {
  if (!existsSync(dataDir)) return { error: `--data-dir ${JSON.stringify(dataDir)}: no such directory; give the directory fairway serve --data-dir used` };
  if (!statSync(dataDir).isDirectory())
    return { error: `--data-dir ${JSON.stringify(dataDir)} is not a directory; give the directory fairway serve --data-dir used` };
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

/** What a storage command starts from: its flags, the store, its transformer. */
export interface StorageCommand<T extends FlagTable> {
  readonly values: FlagValues<T>;
  readonly location: string;
  /** Reads encrypted values when --encryption-provider-config was given. */
  readonly transformer: Transformer | undefined;
  close(): void;
}

/**
 * Parses the flags, finds the store and loads the transformer; on a problem prints it and returns
 * the exit code.
 */
export async function startStorageCommand<T extends StorageFlags>(
  spec: CommandSpec<T>,
  args: readonly string[],
  output: Output,
): Promise<StorageCommand<T> | { exitCode: number }> {
  const parsed = parseCommandLine(spec, args, output);
  if ('exitCode' in parsed) return parsed;
  const { values } = parsed;
  const where = storeLocation(values.dataDir);
  if ('error' in where) {
    output.stderr(`Error: ${where.error}\n`);
    return { exitCode: 1 };
  }
  if (values.config === '') return { values, location: where.location, transformer: undefined, close: () => undefined };
  const loaded = await loadStorageTransformer(values.config, values.apiDomain);
  if (!loaded.ok) {
    output.stderr(`Error: ${loaded.error}\n`);
    return { exitCode: 1 };
  }
  return { values, location: where.location, transformer: loaded.transformer, close: () => loaded.transformers.close() };
}
