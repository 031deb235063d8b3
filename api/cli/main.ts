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
  'sim run': async () => (await import('../../sim/cli-run.ts')).simRunCommand,
  'sim sweep': async () => (await import('../../sim/cli-sweep.ts')).simSweepCommand,
  'storage check': async () => (await import('./storage-check.ts')).storageCheckCommand,
  'storage migrate': async () => (await import('./storage-migrate.ts')).storageMigrateCommand,
  'storage repair': async () => (await import('./storage-repair.ts')).storageRepairCommand,
};

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    await printHelp();
    return argv.length === 0 ? 2 : 0;
  }
  // Commands are one or two words (`serve`, `config check`); take the longest that exists.
  const two = argv.slice(0, 2).join(' ');
  const name = COMMANDS[two] !== undefined ? two : argv[0]!;
  const load = COMMANDS[name];
  if (load === undefined) {
    process.stderr.write(`fairway: unknown command "${argv.slice(0, 2).join(' ')}"; see 'fairway --help'\n`);
    return 2;
  }
  const command = await load();
  return command.run(argv.slice(name.split(' ').length));
}

async function printHelp(): Promise<void> {
  const lines = ['Usage: fairway <command> [flags]', '', 'Commands:'];
  for (const [name, load] of Object.entries(COMMANDS)) lines.push(`  ${name.padEnd(16)} ${(await load()).summary}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}
