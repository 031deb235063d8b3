// `fairway storage check`: the read-only integrity check of a LevelDB data directory
// (storage-inspect.ts), printed as kube-apiserver prints a verbose health check, with an exit code.

import type { Command } from './main.ts';
import type { Output } from './config-check.ts';
import { DEFAULT_API_DOMAIN } from '../../engine/resources/api-domain.ts';
import { repairHint } from '../recovery-hint.ts';
import { startStorageCommand } from './storage-flags.ts';
import { formatFindings, inspectStore, problems } from './storage-inspect.ts';

const USAGE = `Usage: fairway storage check [--data-dir DIR] [--encryption-provider-config FILE] [--api-domain DOMAIN]

Checks the LevelDB store under DIR/store without changing it: that the directory holds a database,
every checksum of every LevelDB log, table and manifest file, that the database holds the newest
revision the server acknowledged (DIR/store/ACKNOWLEDGED-REVISION), and that every stored value
decodes. Run it with the server stopped; a store the server holds is reported as in use.

Flags:
  --data-dir DIR                       the server's --data-dir (default ./data)
  --encryption-provider-config FILE    decode encrypted values too (without it they are only counted)
  --api-domain DOMAIN                  as fairway serve --api-domain (default ${DEFAULT_API_DOMAIN})
  -h, --help                           show this help

Output: one line per check, "[+]name ..." when it passed and "[-]name ..." when it did not, then
"storage check passed" or "storage check failed: N problems" and what to run next.

Exit status: 0 when the store is intact, 1 when something is wrong with it (or it is in use),
2 for usage errors.
`;

export const storageCheckCommand: Command = {
  run: (args) => runStorageCheck(args, { stdout: (text) => process.stdout.write(text), stderr: (text) => process.stderr.write(text) }),
};

export async function runStorageCheck(args: string[], output: Output): Promise<number> {
  const command = await startStorageCommand<never>(args, {}, USAGE, output);
  if ('exitCode' in command) return command.exitCode;
  try {
    const inspection = await inspectStore(command.location, command.transformer);
    output.stdout(`checking ${command.location}\n${formatFindings(inspection.findings)}`);
    const found = problems(inspection);
    if (found.length === 0) {
      output.stdout('storage check passed\n');
      return 0;
    }
    output.stdout(`storage check failed: ${found.length} problem${found.length === 1 ? '' : 's'}${inspection.inUse ? '' : `; ${repairHint(command.values.dataDir)}`}\n`);
    return 1;
  } finally {
    command.close();
  }
}
