import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SERVE_FLAGS, parseServeFlags, serveHelp, type ServeOptions } from './serve-flags.ts';

function options(argv: string[]): ServeOptions {
  const result = parseServeFlags(argv);
  if (result.kind !== 'options') throw new Error(`expected options, got ${JSON.stringify(result)}`);
  return result.options;
}

function error(argv: string[]): string {
  const result = parseServeFlags(argv);
  if (result.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  assert.not.match(result.message, /\n/);
  return result.message;
}

test('defaults', () => {
  const o = options([]);
  assert.equal(
    [o.dataDir, o.bindAddress, o.securePort, o.certDir, o.maxRequestsInflight, o.maxMutatingRequestsInflight, o.requestTimeoutMs, o.apiDomain],
    ['./data', '127.0.0.1', 6443, 'data/pki', 400, 200, 60_000, 'k8s.io'],
  );
  assert.equal(
    [o.enablePriorityAndFairness, o.apfEnforce, o.anonymousAuth, o.storageBackend, o.etcdServers, o.tlsCertFile],
    [true, true, false, 'leveldb', [], ''],
  );
});

test('--flag=value and --flag value; cert-dir follows data-dir unless given', () => {
  const o = options(['--secure-port=8443', '--data-dir', '/var/fw', '--bind-address', '::1', '--api_domain=example.com']);
  assert.equal([o.securePort, o.dataDir, o.certDir, o.bindAddress, o.apiDomain], [8443, '/var/fw', '/var/fw/pki', '::1', 'example.com']);
  assert.is(options(['--data-dir=/x', '--cert-dir=/certs']).certDir, '/certs');
  assert.is(options(['--tls-cert-file', '--weird-but-a-value', '--tls-private-key-file=k']).tlsCertFile, '--weird-but-a-value');
});

test('booleans: bare means true, =false turns off, Go spellings accepted', () => {
  assert.is(options(['--anonymous-auth']).anonymousAuth, true);
  assert.is(options(['--apf-enforce=false']).apfEnforce, false);
  assert.is(options(['--enable-priority-and-fairness=F']).enablePriorityAndFairness, false);
  assert.is(options(['--anonymous-auth=TRUE']).anonymousAuth, true);
  assert.is(error(['--apf-enforce=maybe']), '--apf-enforce: "maybe" is not true or false');
  // A separate word after a boolean is not its value: pflag leaves it as an argument.
  assert.is(error(['--apf-enforce', 'false']), 'fairway serve takes no arguments, got "false" (a boolean flag takes its value after "=": --apf-enforce=false)');
});

test("integers take Go's forms (as pflag does); a bad one is reported in plain words", () => {
  assert.is(options(['--max-requests-inflight=0x10']).maxRequestsInflight, 16);
  assert.is(options(['--max-requests-inflight=010']).maxRequestsInflight, 8);
  assert.is(options(['--max-requests-inflight=1_000']).maxRequestsInflight, 1000);
  assert.is(options(['--max-requests-inflight=+5']).maxRequestsInflight, 5);
  assert.is(error(['--secure-port', 'abc']), '--secure-port: "abc" is not a number');
  assert.is(error(['--secure-port=1__0']), '--secure-port: "1__0" is not a number');
  assert.is(error(['--secure-port=08']), '--secure-port: "08" is not a number: a leading 0 makes it octal (digits 0 to 7)');
  assert.is(error(['--secure-port=0x']), '--secure-port: "0x" is not a number');
  assert.is(error(['--secure-port=']), '--secure-port: "" is not a number');
  assert.is(error(['--secure-port=1.5']), '--secure-port: "1.5" is not a whole number');
  assert.is(error(['--max-requests-inflight=9223372036854775808']), '--max-requests-inflight: "9223372036854775808" is too large');
});

test('durations parse as time.ParseDuration does', () => {
  assert.is(options(['--request-timeout=1m30s']).requestTimeoutMs, 90_000);
  assert.is(options(['--request-timeout', '1.5h']).requestTimeoutMs, 5_400_000);
  assert.is(options(['--request-timeout=250ms']).requestTimeoutMs, 250);
  assert.is(options(['--request-timeout=0']).requestTimeoutMs, 0);
  assert.is(error(['--request-timeout=60']), '--request-timeout: "60" is not a duration (it needs a unit): write e.g. 30s, 1m30s, 250ms or 2h');
  assert.is(error(['--request-timeout=5x']), '--request-timeout: "5x" is not a duration: write e.g. 30s, 1m30s, 250ms or 2h');
  assert.is(error(['--request-timeout=abc']), '--request-timeout: "abc" is not a duration: write e.g. 30s, 1m30s, 250ms or 2h');
  assert.is(error(['--request-timeout=-1s']), '--request-timeout can not be negative value');
});

test('IP flags, string lists, repeated flags', () => {
  assert.is(
    error(['--bind-address=localhost']),
    '--bind-address: "localhost" is not an IP address (a host name is not taken): write e.g. 127.0.0.1, 0.0.0.0 or ::1',
  );
  assert.equal(options(['--enable-admission-plugins=A,B', '--enable-admission-plugins=C']).enableAdmissionPlugins, ['A', 'B', 'C']);
  assert.equal(options(['--storage-backend=etcd3', '--etcd-servers', 'https://127.0.0.1:2379']).etcdServers, ['https://127.0.0.1:2379']);
  assert.is(options(['--secure-port=1', '--secure-port=2']).securePort, 2);
});

test('syntax errors name the flag and say what would work', () => {
  assert.is(error(['--nope']), 'unknown flag: --nope');
  assert.is(error(['--nope=1']), 'unknown flag: --nope');
  assert.is(error(['--secure-prot=1']), 'unknown flag: --secure-prot; did you mean --secure-port?');
  assert.is(error(['--port', '8443']), 'unknown flag: --port; did you mean --secure-port?');
  assert.is(error(['--data_dirr=/x']), 'unknown flag: --data-dirr; did you mean --data-dir?');
  assert.is(error(['-x']), 'unknown flag: -x (long flags start with --)');
  assert.is(error(['-secure-port=1']), 'unknown flag: -secure-port; did you mean --secure-port?');
  assert.is(error(['---secure-port=1']), 'bad flag syntax: ---secure-port=1; flags are written --name=value or --name value');
  assert.is(error(['--=1']), 'bad flag syntax: --=1; flags are written --name=value or --name value');
  assert.is(error(['--data-dir']), '--data-dir needs a value (--data-dir=string or --data-dir string)');
  assert.is(error(['serve-me']), 'fairway serve takes no arguments, got "serve-me"');
  assert.is(error(['--', '--secure-port=1']), 'fairway serve takes no arguments, got "--secure-port=1"');
});

test('value checks after parsing name the flag', () => {
  assert.is(error(['--secure-port=0']), '--secure-port 0 must be between 1 and 65535, inclusive. It cannot be turned off with 0');
  assert.is(error(['--secure-port=70000']), '--secure-port 70000 must be between 1 and 65535, inclusive. It cannot be turned off with 0');
  assert.is(error(['--max-requests-inflight=-1']), '--max-requests-inflight can not be negative value');
  assert.is(
    error(['--show-hidden-metrics-for-version=1.30']),
    "--show-hidden-metrics-for-version must be omitted or have the value '1.31'. Only the previous minor version is allowed",
  );
  const ok = parseServeFlags(['--show-hidden-metrics-for-version=1.31']);
  assert.is(ok.kind === 'options' ? ok.options.showHiddenMetricsForVersion : ok.kind, '1.31');
  assert.is(error(['--max-mutating-requests-inflight=-1']), '--max-mutating-requests-inflight can not be negative value');
  assert.match(error(['--storage-backend=rocks']), /^--storage-backend invalid, allowed values: leveldb, etcd3, memory/);
  assert.is(error(['--storage-backend=etcd3']), '--etcd-servers must be specified');
  assert.is(error(['--tls-cert-file=c.pem']), '--tls-cert-file and --tls-private-key-file must be specified together');
  assert.match(error(['--authorization-config=a.yaml', '--authorization-mode=Webhook']), /^--authorization-config /);
  assert.match(error(['--api-domain=Not_A_Domain']), /^--api-domain "Not_A_Domain" must be/);
  assert.is(
    error(['--encryption-provider-config-automatic-reload']),
    '--encryption-provider-config-automatic-reload must be set with --encryption-provider-config',
  );
});

test('encryption flags: the file, and automatic reload off unless asked for', () => {
  assert.equal([options([]).encryptionProviderConfig, options([]).encryptionProviderConfigAutomaticReload], ['', false]);
  const o = options(['--encryption-provider-config', 'enc.yaml', '--encryption-provider-config-automatic-reload']);
  assert.equal([o.encryptionProviderConfig, o.encryptionProviderConfigAutomaticReload], ['enc.yaml', true]);
});

test('--max-watches-per-user: 1000 by default, 0 for no limit, never negative', () => {
  assert.is(options([]).maxWatchesPerUser, 1000);
  assert.is(options(['--max-watches-per-user=0']).maxWatchesPerUser, 0);
  assert.is(options(['--max-watches-per-user', '5']).maxWatchesPerUser, 5);
  assert.is(error(['--max-watches-per-user=-1']), '--max-watches-per-user can not be negative value');
});

test('--help and -h give help text listing every flag with its default', () => {
  for (const argv of [['--help'], ['-h'], ['--secure-port=1', '--help']]) {
    const result = parseServeFlags(argv);
    assert.is(result.kind, 'help');
  }
  const text = serveHelp();
  for (const spec of Object.values(SERVE_FLAGS)) assert.match(text, `--${spec.name}`);
  assert.match(text, /--secure-port int +The port .*\(default 6443\)/);
  assert.match(text, /--request-timeout duration +.*\(default 1m0s\)/);
  assert.match(text, /--data-dir string +.*\(default "\.\/data"\)/);
  assert.match(text, /--anonymous-auth {2,}Treat/);
  assert.not.match(text, /--anonymous-auth.*\(default/);
  const lines = text.split('\n').filter((l) => l.startsWith('  '));
  const columns = new Set(
    lines
      .filter((l) => l.includes('--'))
      .map((l) => {
        const m = /^(.*?--\S+(?: [A-Za-z]+)?)( {3,})\S/.exec(l)!;
        return m[1]!.length + m[2]!.length;
      }),
  );
  assert.is(columns.size, 1, 'descriptions line up in one column');
});

test("-v / --v: klog verbosity in pflag's shorthand forms", () => {
  for (const args of [['-v=3'], ['-v3'], ['-v', '3'], ['--v=3'], ['--v', '3']]) {
    const parsed = parseServeFlags(args);
    assert.is(parsed.kind === 'options' ? parsed.options.verbosity : undefined, 3, args.join(' '));
  }
  const bad = parseServeFlags(['-v=x']);
  assert.equal(bad, { kind: 'error', message: '--v: "x" is not a number' });
  assert.match(serveHelp(), /^ {2}-v, --v Level {3,}number for the log level verbosity/m);
});

test.run();
