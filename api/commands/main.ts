// `fairway <command> [args]`: one table of commands, each a module loaded only when used, so that
// `fairway config check` does not pay for the server's imports and `fairway --help` for any.

import type { Command } from '../../cli/command.ts';
import { ownValue } from '../../engine/own-property.ts';

interface CommandEntry {
  /** One line for `fairway --help`: kept here, so that help loads no command module. */
  summary: string;
  load: () => Promise<Command>;
}

export const COMMANDS: Readonly<Record<string, CommandEntry>> = {
  'config check': {
    summary: 'validate FlowSchema/PriorityLevelConfiguration manifests and apiserver config files (authorization, admission, encryption) offline',
    load: async () => (await import('./config-check.ts')).configCheckCommand,
  },
  serve: { summary: 'run the API server (kube-apiserver flags; --help lists them)', load: async () => (await import('./serve.ts')).serveCommand },
  'sim compare': {
    summary: 'compare configuration variants with the baseline over seeds',
    load: async () => (await import('../../sim/cli/cli-compare.ts')).simCompareCommand,
  },
  'sim import': {
    summary: "write a scenario from a running API server's APF configuration",
    load: async () => (await import('../../sim/cli/cli-import.ts')).simImportCommand,
  },
  'sim run': {
    summary: 'simulate a scenario through the APF engine and write a report',
    load: async () => (await import('../../sim/cli/cli-run.ts')).simRunCommand,
  },
  'sim sweep': {
    summary: 'run a scenario over many seeds and config variants in parallel',
    load: async () => (await import('../../sim/cli/cli-sweep.ts')).simSweepCommand,
  },
  'sim tune': {
    summary: 'find the smallest configuration change that meets objectives',
    load: async () => (await import('../../sim/cli/cli-tune.ts')).simTuneCommand,
  },
  'storage check': {
    summary: 'check a LevelDB data directory for damage and lost writes, without changing it',
    load: async () => (await import('./storage-check.ts')).storageCheckCommand,
  },
  'storage migrate': {
    summary: 'rewrite every stored object with the current encryption write provider (offline, LevelDB)',
    load: async () => (await import('./storage-migrate.ts')).storageMigrateCommand,
  },
  'storage repair': {
    summary: 'repair a damaged LevelDB data directory (backs it up first) and report what was lost',
    load: async () => (await import('./storage-repair.ts')).storageRepairCommand,
  },
  top: {
    summary: 'watch API Priority and Fairness live on any kube-apiserver (levels, FlowSchemas, flows)',
    load: async () => (await import('./top.ts')).topCommand,
  },
};

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || HELP_FLAGS.has(argv[0]!)) {
    printHelp(Object.keys(COMMANDS), 'fairway <command> [flags]');
    return argv.length === 0 ? 2 : 0;
  }
  // Commands are one or two words (`serve`, `config check`); take the longest that exists.
  const two = argv.slice(0, 2).join(' ');
  const name = ownValue(COMMANDS, two) !== undefined ? two : argv[0]!;
  const load = ownValue(COMMANDS, name)?.load;
  // A group's first word alone (`fairway sim`, `fairway sim --help`) lists its subcommands.
  const group = Object.keys(COMMANDS).filter((c) => c.startsWith(`${argv[0]} `));
  if (load === undefined && group.length > 0 && (argv.length === 1 || HELP_FLAGS.has(argv[1]!))) {
    printHelp(group, `fairway ${argv[0]} <command> [flags]`);
    return argv.length === 1 ? 2 : 0;
  }
  if (load === undefined) {
    process.stderr.write(`fairway: unknown command "${argv.slice(0, 2).join(' ')}"; see 'fairway --help'\n`);
    return 2;
  }
  const command = await load();
  return command.run(argv.slice(name.split(' ').length));
}

const HELP_FLAGS = new Set(['--help', '-h', 'help']);

function printHelp(names: readonly string[], usage: string): void {
  const lines = [`Usage: ${usage}`, '', 'Commands:'];
  for (const name of names) lines.push(`  ${name.padEnd(16)} ${COMMANDS[name]!.summary}`);
  lines.push('', `Run 'fairway <command> --help' for a command's flags.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
