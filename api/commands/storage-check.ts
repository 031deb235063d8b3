// `fairway storage check`: the read-only integrity check of a LevelDB data directory
// (storage-inspect.ts), printed as kube-apiserver prints a verbose health check, with an exit code.

import { processOutput, type Command, type CommandSpec, type Output } from '../../cli/command.ts';
import { repairHint } from '../data-dir/recovery-hint.ts';
import { STORAGE_FLAGS, startStorageCommand, type StorageFlags } from './storage-flags.ts';
import { formatFindings, inspectStore, problems } from './storage-inspect.ts';

export const STORAGE_CHECK_COMMAND: CommandSpec<StorageFlags> = {
  path: 'fairway storage check',
  usage: 'fairway storage check [--data-dir DIR] [--encryption-provider-config FILE] [--api-domain DOMAIN]',
  description: `Checks the LevelDB store under DIR/store without changing it: that the directory holds a database,
every checksum of every LevelDB log, table and manifest file, that the database holds the newest
revision the server acknowledged (DIR/store/ACKNOWLEDGED-REVISION), and that every stored value
decodes. Run it with the server stopped; a store the server holds is reported as in use.`,
  flags: STORAGE_FLAGS,
  epilogue: `Output: one line per check, "[+]name ..." when it passed and "[-]name ..." when it did not, then
"storage check passed" or "storage check failed: N problems" and what to run next.

Exit status: 0 when the store is intact, 1 when something is wrong with it (or it is in use),
2 for usage errors.`,
};

export const storageCheckCommand: Command = {
  spec: STORAGE_CHECK_COMMAND,
  run: (args) => runStorageCheck(args, processOutput),
};

export async function runStorageCheck(args: string[], output: Output): Promise<number> {
  const command = await startStorageCommand(STORAGE_CHECK_COMMAND, args, output);
  if ('exitCode' in command) return command.exitCode;
  try {
    const inspection = await inspectStore(command.location, command.transformer);
    output.stdout(`checking ${command.location}\n${formatFindings(inspection.findings)}`);
    const found = problems(inspection);
    if (found.length === 0) {
      output.stdout('storage check passed\n');
      return 0;
    }
    output.stdout(
      `storage check failed: ${found.length} problem${found.length === 1 ? '' : 's'}${inspection.inUse ? '' : `; ${repairHint(command.values.dataDir)}`}\n`,
    );
    return 1;
  } finally {
    command.close();
  }
}
