// `fairway <command> [args]`: one table of commands, each a module loaded only when used so that
// `fairway config check` does not pay for the server's imports.

export interface Command {
  /** One line for `fairway --help`. */
  summary: string;
  /** Runs the command; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

type CommandLoader = () => Promise<Command>;

const COMMANDS: Record<string, CommandLoader> = {
  'config check': async () => (await import('./config-check.ts')).configCheckCommand,
  serve: async () => (await import('../serve.ts')).serveCommand,
  'sim compare': async () => (await import('../../sim/cli-compare.ts')).simCompareCommand,
  'sim import': async () => (await import('../../sim/cli-import.ts')).simImportCommand,
  'sim run': async () => (await import('../../sim/cli-run.ts')).simRunCommand,
  'sim sweep': async () => (await import('../../sim/cli-sweep.ts')).simSweepCommand,
  'sim tune': async () => (await import('../../sim/cli-tune.ts')).simTuneCommand,
  'storage check': async () => (await import('./storage-check.ts')).storageCheckCommand,
  'storage migrate': async () => (await import('./storage-migrate.ts')).storageMigrateCommand,
  'storage repair': async () => (await import('./storage-repair.ts')).storageRepairCommand,
};

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || HELP_FLAGS.has(argv[0]!)) {
    await printHelp(Object.keys(COMMANDS), 'fairway <command> [flags]');
    return argv.length === 0 ? 2 : 0;
  }
  // Commands are one or two words (`serve`, `config check`); take the longest that exists.
  const two = argv.slice(0, 2).join(' ');
  const name = COMMANDS[two] !== undefined ? two : argv[0]!;
  const load = COMMANDS[name];
  // A group's first word alone (`fairway sim`, `fairway sim --help`) lists its subcommands.
  const group = Object.keys(COMMANDS).filter((c) => c.startsWith(`${argv[0]} `));
  if (load === undefined && group.length > 0 && (argv.length === 1 || HELP_FLAGS.has(argv[1]!))) {
    await printHelp(group, `fairway ${argv[0]} <command> [flags]`);
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

async function printHelp(names: readonly string[], usage: string): Promise<void> {
  const lines = [`Usage: ${usage}`, '', 'Commands:'];
  for (const name of names) lines.push(`  ${name.padEnd(16)} ${(await COMMANDS[name]!()).summary}`);
  lines.push('', `Run 'fairway <command> --help' for a command's flags.`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
