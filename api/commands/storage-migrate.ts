// `fairway storage migrate`: rewrite every stored object in the current write format of an
// EncryptionConfiguration, offline, on a LevelDB data directory the server is not using. Objects
// are read with any provider the configuration lists and written with each resource's first
// provider and key: the "rewrite everything" step of a key rotation or a provider change, after
// which the old key can be removed. An object already in the write format is left as it is.

import { processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { useOwnerOnlyUmask } from '../data-dir/data-dir.ts';
import { realClock } from '../../engine/clock.ts';
import type { GroupResource } from '../../engine/config/encryption-config.ts';
import { formatGroupResource } from '../../engine/config/encryption-config.ts';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { KEY_PREFIX, createStore } from '../../engine/store/store.ts';
import { isStoreErrorCode } from '../../engine/store/store-errors.ts';
import type { Store } from '../../engine/store/store-types.ts';
import { storedResources } from '../security/encryption-at-rest.ts';
import { STORAGE_FLAGS, startStorageCommand } from './storage-flags.ts';
import { recoveryHint } from '../data-dir/recovery-hint.ts';

const STORAGE_MIGRATE_FLAGS = {
  ...STORAGE_FLAGS,
  config: {
    ...STORAGE_FLAGS.config,
    description: 'the EncryptionConfiguration the server will run with',
    required: '--encryption-provider-config is required: give the EncryptionConfiguration the server will run with',
    validate: (value: string, name: string) => (value === '' ? `${name} must name an EncryptionConfiguration file` : undefined),
  },
};

export const STORAGE_MIGRATE_COMMAND: CommandSpec<typeof STORAGE_MIGRATE_FLAGS> = {
  path: 'fairway storage migrate',
  usage: 'fairway storage migrate --encryption-provider-config FILE [--data-dir DIR] [--api-domain DOMAIN]',
  description: `Rewrites every object stored under DIR/store with the write provider of the EncryptionConfiguration
in FILE (each resource's first provider and its first key), reading with any provider FILE lists.
Run it with the server stopped, after putting the new key or provider first; then the old one can
be removed from FILE. Objects already in the write format are not rewritten.`,
  flags: STORAGE_MIGRATE_FLAGS,
  epilogue: `Output: one line, e.g.
  migrated 21 objects: prioritylevelconfigurations.flowcontrol.apiserver.k8s.io 8, flowschemas.flowcontrol.apiserver.k8s.io 13
and, when some were already in the write format, a second line counting those.

Exit status: 0 when every object was migrated or already current, 1 when something could not be
read or written (the data directory is in use, a key is missing, the KMS plugin is down), 2 for
usage errors.`,
};

export const storageMigrateCommand: Command = {
  spec: STORAGE_MIGRATE_COMMAND,
  run: (args) => {
    useOwnerOnlyUmask();
    return runStorageMigrate(args, processOutput);
  },
};

export async function runStorageMigrate(args: string[], output: Output): Promise<number> {
  const command = await startStorageCommand(STORAGE_MIGRATE_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  const { values, location } = command;
  // A required flag: the parser saw it, so the transformer was loaded.
  const transformer = command.transformer!;
  const known = storedResources(values.apiDomain);
  const store = createStore({ backend: createLevelDbBackend({ location, recoveryHint: recoveryHint(values.dataDir) }), clock: realClock(), transformer });
  try {
    await store.open();
  } catch (error) {
    command.close();
    const why = isStoreErrorCode(error, 'FW_ERR_STORE_LOCKED') ? `${location} is in use: stop fairway serve first (${messageOf(error)})` : messageOf(error);
    output.stderr(`Error: ${why}\n`);
    return 1;
  }
  try {
    return await migrateAll(store, resourcesIn(store, known), output);
  } finally {
    await store.close();
    command.close();
  }
}

async function migrateAll(store: Store, resources: GroupResource[], output: Output): Promise<number> {
  const migrated: string[] = [];
  const current: string[] = [];
  let migratedTotal = 0;
  let currentTotal = 0;
  let failed = false;
  for (const gr of resources) {
    const name = formatGroupResource(gr);
    const objects = store.for({ ...gr, kind: gr.resource, apiVersion: '' });
    let rewritten = 0;
    let unchanged = 0;
    try {
      for (const item of (await objects.list()).items) {
        const before = item.metadata?.resourceVersion;
        // The same content: the store writes it only if it is not in the write format yet.
        const after = await objects.guaranteedUpdate(item.metadata?.name ?? '', (latest) => structuredClone(latest));
        if (after.metadata?.resourceVersion === before) unchanged++;
        else rewritten++;
      }
    } catch (error) {
      failed = true;
      output.stderr(`Error: ${name}: ${messageOf(error)}\n`);
    }
    if (rewritten + unchanged === 0) continue;
    migrated.push(`${name} ${rewritten}`);
    current.push(`${name} ${unchanged}`);
    migratedTotal += rewritten;
    currentTotal += unchanged;
  }
  output.stdout(`migrated ${migratedTotal} objects${migrated.length > 0 ? `: ${migrated.join(', ')}` : ''}\n`);
  if (currentTotal > 0) output.stdout(`already in the write format ${currentTotal} objects: ${current.join(', ')}\n`);
  return failed ? 1 : 0;
}

/** The resources the server stores, then any other resource found in the store, in prefix order. */
function resourcesIn(store: Store, known: readonly GroupResource[]): GroupResource[] {
  const result = [...known];
  const seen = new Set(known.map(formatGroupResource));
  for (const { prefix } of store.dump().resources) {
    const parts = prefix.slice(KEY_PREFIX.length, -1).split('/');
    const gr = parts.length === 2 ? { group: parts[0]!, resource: parts[1]! } : { group: '', resource: parts[0]! };
    if (!seen.has(formatGroupResource(gr))) result.push(gr);
    seen.add(formatGroupResource(gr));
  }
  return result;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
