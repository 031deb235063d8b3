import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commandHelp, parseCommandLine, type CommandSpec } from './command.ts';
import { flag } from './flag-table.ts';
import { parseFlags } from './parse-flags.ts';

const FLAGS = {
  port: flag('int', 'secure-port', 6443, 'The port.', { validate: (v, name) => (v < 1 ? `${name} ${v} must be positive` : undefined) }),
  dir: flag('string', 'data-dir', './data', 'The directory.'),
  on: flag('bool', 'enable-thing', true, 'Turns the thing on.'),
  modes: flag('strings', 'authorization-mode', ['A'], 'Modes, comma-separated.'),
  files: flag('stringArray', 'variant', [], 'A file; repeatable.', { valueName: 'FILE' }),
  timeout: flag('duration', 'request-timeout', 60_000, 'How long.'),
  verbosity: flag('int', 'v', 0, 'Log level.', { shorthand: 'v', valueName: 'Level' }),
  out: flag('string', 'out', '', 'Output.', { required: '--out DIR is required' }),
};

const SPEC: CommandSpec<typeof FLAGS> = {
  path: 'fairway demo',
  usage: 'fairway demo [flags] FILE',
  description: 'A demo.',
  flags: FLAGS,
  positionals: { name: 'FILE', min: 0, max: 1, missing: 'no file' },
  check: (v) => (v.dir === '/forbidden' ? '--data-dir /forbidden is not allowed' : undefined),
};

function values(...argv: string[]) {
  const parsed = parseFlags(SPEC, ['--out=o', ...argv]);
  if (parsed.kind !== 'values') throw new Error(`expected values, got ${JSON.stringify(parsed)}`);
  return parsed;
}

function error(...argv: string[]): string {
  const parsed = parseFlags(SPEC, ['--out=o', ...argv]);
  if (parsed.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
  assert.not.match(parsed.message, /\n/);
  assert.not.match(parsed.message, /strconv|ParseInt|time: /);
  return parsed.message;
}

test('--flag=value, --flag value, a value starting with a dash, _ for -', () => {
  assert.equal([values('--secure-port=1').values.port, values('--secure-port', '2').values.port], [1, 2]);
  assert.is(values('--data-dir', '--odd').values.dir, '--odd');
  assert.is(values('--data_dir=x').values.dir, 'x');
  assert.is(values('--secure-port=1', '--secure-port=2').values.port, 2, 'the last one wins');
});

test('booleans: bare is true, =false is false, a separate word is an argument', () => {
  assert.is(values('--enable-thing=false').values.on, false);
  assert.is(values('--enable-thing=0', '--enable-thing').values.on, true);
  const stray = values('--enable-thing', 'false');
  assert.equal([stray.values.on, stray.positionals], [true, ['false']]);
  assert.is(error('--enable-thing=maybe'), '--enable-thing: "maybe" is not true or false');
  assert.is(error('--enable-thing', 'false', 'x'), 'fairway demo takes one FILE, got "x"');
});

test('lists: comma-separated, the first use replaces the default, later uses append; arrays keep commas', () => {
  assert.equal(values().values.modes, ['A']);
  assert.equal(values('--authorization-mode=B,C', '--authorization-mode', 'D').values.modes, ['B', 'C', 'D']);
  assert.equal(values('--authorization-mode=').values.modes, []);
  assert.equal(values('--variant', 'a,b.yaml', '--variant=c.yaml').values.files, ['a,b.yaml', 'c.yaml']);
});

test('numbers and durations: Go forms accepted, plain words for mistakes', () => {
  assert.is(values('--secure-port=0x10').values.port, 16);
  assert.is(values('--request-timeout=1m30s').values.timeout, 90_000);
  assert.is(error('--secure-port=abc'), '--secure-port: "abc" is not a number');
  assert.is(error('--secure-port=2.5'), '--secure-port: "2.5" is not a whole number');
  assert.is(error('--secure-port=1e99'), '--secure-port: "1e99" is not a whole number');
  assert.is(error('--secure-port=99999999999999999999'), '--secure-port: "99999999999999999999" is too large');
  assert.is(error('--request-timeout=5'), '--request-timeout: "5" is not a duration (it needs a unit): write e.g. 30s, 1m30s, 250ms or 2h');
});

test('shorthand forms -v=3, -v3, -v 3', () => {
  for (const argv of [['-v=3'], ['-v3'], ['-v', '3'], ['--v=3']]) assert.is(values(...argv).values.verbosity, 3, argv.join(' '));
});

test('validation: per flag on given values, required flags, rules between flags, positionals', () => {
  assert.is(error('--secure-port=0'), '--secure-port 0 must be positive');
  assert.is(parseFlags(SPEC, []).kind === 'error' && (parseFlags(SPEC, []) as { message: string }).message, '--out DIR is required');
  assert.is(error('--data-dir=/forbidden'), '--data-dir /forbidden is not allowed');
  assert.equal(values('f.yaml').positionals, ['f.yaml']);
  assert.equal(values('--', '--secure-port=1').positionals, ['--secure-port=1']);
  assert.is(error('a', 'b'), 'fairway demo takes one FILE, got "b"');
});

test('unknown flags name the closest flag when it is likely a typo', () => {
  assert.is(error('--secure-prot=1'), 'unknown flag: --secure-prot; did you mean --secure-port?');
  assert.is(error('--port=1'), 'unknown flag: --port; did you mean --secure-port?');
  assert.is(error('--zzzzzz'), 'unknown flag: --zzzzzz');
  assert.is(error('-q'), 'unknown flag: -q (long flags start with --)');
  assert.is(error('-data-dir=x'), 'unknown flag: -data-dir; did you mean --data-dir?');
  assert.is(error('--data-dir'), '--data-dir needs a value (--data-dir=VALUE or --data-dir VALUE)');
});

test('--help and -h win over other words; help lists every flag with its default and description', () => {
  assert.is(parseFlags(SPEC, ['--nope', '--help']).kind, 'help');
  assert.is(parseFlags(SPEC, ['-h']).kind, 'help');
  const help = commandHelp(SPEC);
  assert.ok(help.startsWith('Usage: fairway demo [flags] FILE\n\nA demo.\n\nFlags:\n'));
  assert.match(help, /^ {6}--secure-port int +The port\. \(default 6443\)$/m);
  assert.match(help, /^ {6}--enable-thing +Turns the thing on\. \(default true\)$/m);
  assert.match(help, /^ {6}--request-timeout duration +How long\. \(default 1m0s\)$/m);
  assert.match(help, /^ {6}--authorization-mode strings +Modes, comma-separated\. \(default \[A\]\)$/m);
  assert.match(help, /^ {6}--variant FILE +A file; repeatable\.$/m);
  assert.match(help, /^ {2}-v, --v Level +Log level\.$/m);
  assert.match(help, /^ {2}-h, --help +help for demo$/m);
});

test('parseCommandLine: usage errors on stderr with exit 2, help on stdout with exit 0', () => {
  const out = { stdout: '', stderr: '' };
  const sink = { stdout: (t: string) => void (out.stdout += t), stderr: (t: string) => void (out.stderr += t) };
  assert.equal(parseCommandLine(SPEC, ['--nope'], sink), { exitCode: 2 });
  assert.is(out.stderr, "Error: unknown flag: --nope\nRun 'fairway demo --help' for usage.\n");
  assert.equal(parseCommandLine(SPEC, ['--help'], sink), { exitCode: 0 });
  assert.ok(out.stdout.startsWith('Usage: fairway demo'));
});

test.run();
