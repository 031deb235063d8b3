// `fairway serve` flags, parsed the way kube-apiserver's (spf13/pflag under cobra) are, so scripts
// written for kube-apiserver work and mistakes are reported in the same words:
// `--flag=value` and `--flag value`; booleans as `--flag` or `--flag=false` (never `--flag false`,
// which leaves `false` as a stray argument); `_` and `-` are interchangeable in names; `--` ends the
// flags. Every problem is one line naming the flag, for exit code 2.
import { isIP } from 'node:net';
import { join } from 'node:path';
import { formatGoDuration, goDurationToMs, parseGoDuration } from '../engine/config/go-duration.ts';
import { goQuote } from './go-format.ts';
import { DEFAULT_MAX_WATCHES_PER_USER } from './handlers/watch-limit.ts';
import { defaultThreadCount } from '../workers/piscina-executor.ts';

/** More threads than this only compete for the same cores. */
export const MAX_EXECUTION_THREADS = 256;

export type FlagKind = 'string' | 'int' | 'bool' | 'duration' | 'ip' | 'strings';

export interface ServeOptions {
  dataDir: string;
  bindAddress: string;
  securePort: number;
  /** Where generated certificates live; defaults to `<dataDir>/pki`. */
  certDir: string;
  tlsCertFile: string;
  tlsPrivateKeyFile: string;
  tokenAuthFile: string;
  maxRequestsInflight: number;
  maxMutatingRequestsInflight: number;
  maxWatchesPerUser: number;
  requestTimeoutMs: number;
  apiDomain: string;
  enablePriorityAndFairness: boolean;
  apfEnforce: boolean;
  apfWorkEstimatorConfigFile: string;
  storageBackend: string;
  etcdServers: string[];
  encryptionProviderConfig: string;
  encryptionProviderConfigAutomaticReload: boolean;
  authorizationConfig: string;
  authorizationMode: string[];
  admissionControlConfigFile: string;
  enableAdmissionPlugins: string[];
  clientCaFile: string;
  anonymousAuth: boolean;
  executionThreads: number;
  /** -v / --v: klog verbosity; 3 and above logs every request. */
  verbosity: number;
  /** 0: the default (100). */
  http2MaxStreamsPerConnection: number;
  disableHttp2Serving: boolean;
}

type OptionValue = string | number | boolean | string[];

export interface FlagSpec {
  name: string;
  kind: FlagKind;
  key: keyof ServeOptions;
  default: OptionValue;
  help: string;
  /** A one-letter form (`-v`). */
  shorthand?: string;
  /** The value's name in --help when it is not the kind's (klog's `Level`). */
  typeName?: string;
}

const flag = (name: string, kind: FlagKind, key: keyof ServeOptions, defaultValue: OptionValue, help: string, extra: Pick<FlagSpec, 'shorthand' | 'typeName'> = {}): FlagSpec => ({
  name,
  kind,
  key,
  default: defaultValue,
  help,
  ...extra,
});

export const STORAGE_BACKENDS = ['leveldb', 'etcd3', 'memory'] as const;

/** Every flag of `fairway serve`, in help order (pflag sorts by name). */
export const SERVE_FLAGS: readonly FlagSpec[] = [
  flag('admission-control-config-file', 'string', 'admissionControlConfigFile', '', 'File with admission control configuration (an AdmissionConfiguration).'),
  flag('anonymous-auth', 'bool', 'anonymousAuth', false, 'Treat requests that no authenticator rejects and none accepts as user system:anonymous in group system:unauthenticated.'),
  flag('api-domain', 'string', 'apiDomain', 'k8s.io', 'Domain part of every API group served and read: flowcontrol.apiserver.<domain>, apiserver.config.<domain>, ...'),
  flag('apf-enforce', 'bool', 'apfEnforce', true, 'Reject and queue requests as API Priority and Fairness decides. When false, requests are classified and measured but never held back.'),
  flag(
    'apf-work-estimator-config-file',
    'string',
    'apfWorkEstimatorConfigFile',
    '',
    'File (YAML or JSON) with the APF work estimator\'s tunables in the form of Kubernetes\' WorkEstimatorConfig (minimumSeats, maximumSeatsLimit, listWorkEstimatorConfig, mutatingWorkEstimatorConfig); fields left out keep kube-apiserver\'s values.',
  ),
  flag('authorization-config', 'string', 'authorizationConfig', '', 'File with an AuthorizationConfiguration (an ordered chain of authorizers). Cannot be combined with --authorization-mode.'),
  flag('authorization-mode', 'strings', 'authorizationMode', [], 'Ordered list of authorization plugins, comma-separated.'),
  flag('bind-address', 'ip', 'bindAddress', '127.0.0.1', 'The IP address on which to listen for the --secure-port port.'),
  flag('cert-dir', 'string', 'certDir', '', 'Directory for the generated CA and serving certificate, created on first start and reused after. Ignored when --tls-cert-file and --tls-private-key-file are given. Empty means pki under --data-dir.'),
  flag('client-ca-file', 'string', 'clientCaFile', '', 'If set, a client certificate signed by one of these CAs authenticates its request, as the user in its CommonName and the groups in its Organization.'),
  flag('data-dir', 'string', 'dataDir', './data', 'Directory for stored objects and generated files.'),
  flag('disable-http2-serving', 'bool', 'disableHttp2Serving', false, 'If true, HTTP2 serving will be disabled [default=false]'),
  flag('enable-admission-plugins', 'strings', 'enableAdmissionPlugins', [], 'Admission plugins to enable in addition to the default ones, comma-separated.'),
  flag('enable-priority-and-fairness', 'bool', 'enablePriorityAndFairness', true, 'Classify requests with FlowSchemas and admit them through API Priority and Fairness. When false, --max-requests-inflight and --max-mutating-requests-inflight limit them instead.'),
  flag('encryption-provider-config', 'string', 'encryptionProviderConfig', '', 'File with an EncryptionConfiguration for encrypting stored objects.'),
  flag(
    'encryption-provider-config-automatic-reload',
    'bool',
    'encryptionProviderConfigAutomaticReload',
    false,
    'Check --encryption-provider-config every minute and use a changed file without a restart; an invalid change is logged and the configuration in force is kept.',
  ),
  flag(
    'execution-threads',
    'int',
    'executionThreads',
    defaultThreadCount(),
    `Worker threads that run the CPU-heavy stages of admitted requests (encoding large lists, YAML, Tables), so the main thread stays free to admit, reject and serve other priority levels. The default is the cores left after the main thread (at least 1); 0 runs that work on the main thread. At most ${MAX_EXECUTION_THREADS}.`,
  ),
  flag('etcd-servers', 'strings', 'etcdServers', [], 'etcd servers to connect to (scheme://ip:port), comma-separated. Required with --storage-backend=etcd3.'),
  flag('http2-max-streams-per-connection', 'int', 'http2MaxStreamsPerConnection', 0, "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default (100)."),
  flag('max-mutating-requests-inflight', 'int', 'maxMutatingRequestsInflight', 200, 'The server\'s share of concurrent mutating requests; with priority and fairness it is added to --max-requests-inflight to give the total concurrency limit. Zero means no limit.'),
  flag('max-requests-inflight', 'int', 'maxRequestsInflight', 400, 'The server\'s share of concurrent non-mutating requests; with priority and fairness it is added to --max-mutating-requests-inflight to give the total concurrency limit. Zero means no limit.'),
  flag('max-watches-per-user', 'int', 'maxWatchesPerUser', DEFAULT_MAX_WATCHES_PER_USER, 'The most watches one user may have open at once; one more is answered 429 with Retry-After. Zero means no limit.'),
  flag('request-timeout', 'duration', 'requestTimeoutMs', 60_000, 'How long a request may run before the server times it out. Watch and other long-running requests are exempt.'),
  flag('secure-port', 'int', 'securePort', 6443, 'The port on which to serve HTTPS with authentication and authorization.'),
  flag('storage-backend', 'string', 'storageBackend', 'leveldb', `Where objects are stored: ${STORAGE_BACKENDS.map((b) => `'${b}'`).join(', ')}.`),
  flag('tls-cert-file', 'string', 'tlsCertFile', '', 'File with the default x509 serving certificate (followed by any intermediates). If not given, one is generated in --cert-dir.'),
  flag('tls-private-key-file', 'string', 'tlsPrivateKeyFile', '', 'File with the private key matching --tls-cert-file.'),
  flag('token-auth-file', 'string', 'tokenAuthFile', '', 'If set, the CSV file (token,user,uid,"group1,group2") whose bearer tokens authenticate requests.'),
  flag('v', 'int', 'verbosity', 0, 'number for the log level verbosity (3 and above: one access log line per request)', { shorthand: 'v', typeName: 'Level' }),
];

export type FlagParseResult =
  | { kind: 'options'; options: ServeOptions }
  | { kind: 'help'; text: string }
  | { kind: 'error'; message: string; exitCode: 2 };

const COMMAND_PATH = 'fairway serve';

/** Parses `fairway serve` arguments (without the command words) and validates the values. */
export function parseServeFlags(argv: readonly string[]): FlagParseResult {
  const byName = new Map(SERVE_FLAGS.map((f) => [f.name, f]));
  const values = new Map<keyof ServeOptions, OptionValue>(SERVE_FLAGS.map((f) => [f.key, Array.isArray(f.default) ? [...f.default] : f.default]));
  const seenSlices = new Set<string>();
  const positional: string[] = [];
  const fail = (message: string): FlagParseResult => ({ kind: 'error', message, exitCode: 2 });
  let wantsHelp = false;

  const args = [...argv];
  while (args.length > 0) {
    const arg = args.shift()!;
    if (arg.length < 2 || !arg.startsWith('-')) {
      positional.push(arg);
      continue;
    }
    if (!arg.startsWith('--')) {
      if (arg === '-h') {
        wantsHelp = true;
        continue;
      }
      // pflag's shorthand forms: `-v=3`, `-v3`, `-v 3`.
      const spec = SERVE_FLAGS.find((f) => f.shorthand === arg[1]);
      if (spec === undefined) return fail(`unknown shorthand flag: '${arg[1]}' in ${arg}`);
      let value = arg.slice(2).replace(/^=/, '');
      if (value === '' && arg.length === 2) {
        if (args.length === 0) return fail(`flag needs an argument: '${arg[1]}' in ${arg}`);
        value = args.shift()!;
      }
      const parsed = parseValue(spec, value);
      if (!parsed.ok) return fail(`invalid argument ${goQuote(value)} for ${goQuote(`-${spec.shorthand}, --${spec.name}`)} flag: ${parsed.message}`);
      values.set(spec.key, parsed.value);
      continue;
    }
    if (arg === '--') {
      positional.push(...args.splice(0));
      break;
    }
    const body = arg.slice(2);
    if (body.startsWith('-') || body.startsWith('=')) return fail(`bad flag syntax: ${arg}`);
    const eq = body.indexOf('=');
    const rawName = eq < 0 ? body : body.slice(0, eq);
    const name = rawName.replaceAll('_', '-');
    if (name === 'help') {
      wantsHelp = true;
      continue;
    }
    const spec = byName.get(name);
    if (spec === undefined) return fail(`unknown flag: --${rawName}`);
    let value: string;
    if (eq >= 0) value = body.slice(eq + 1);
    else if (spec.kind === 'bool') value = 'true';
    else if (args.length > 0) value = args.shift()!;
    else return fail(`flag needs an argument: ${arg}`);

    const parsed = parseValue(spec, value);
    if (!parsed.ok) return fail(`invalid argument ${goQuote(value)} for ${goQuote(`--${spec.name}`)} flag: ${parsed.message}`);
    if (spec.kind === 'strings') {
      // pflag: the first use replaces the default, later uses append.
      const previous = seenSlices.has(spec.name) ? (values.get(spec.key) as string[]) : [];
      values.set(spec.key, [...previous, ...(parsed.value as string[])]);
      seenSlices.add(spec.name);
    } else {
      values.set(spec.key, parsed.value);
    }
  }

  if (wantsHelp) return { kind: 'help', text: serveHelp() };
  if (positional.some((a) => a.length > 0)) return fail(`${goQuote(COMMAND_PATH)} does not take any arguments, got [${positional.map(goQuote).join(' ')}]`);

  const options = Object.fromEntries(values) as unknown as ServeOptions;
  if (options.certDir === '') options.certDir = join(options.dataDir, 'pki');
  const problem = validate(options);
  return problem === undefined ? { kind: 'options', options } : fail(problem);
}

type ValueParse = { ok: true; value: OptionValue } | { ok: false; message: string };

function parseValue(spec: FlagSpec, text: string): ValueParse {
  switch (spec.kind) {
    case 'string':
      return { ok: true, value: text };
    case 'strings':
      return { ok: true, value: text === '' ? [] : text.split(',') };
    case 'bool': {
      if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return { ok: true, value: true };
      if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return { ok: true, value: false };
      return { ok: false, message: `strconv.ParseBool: parsing ${goQuote(text)}: invalid syntax` };
    }
    case 'int':
      return parseGoInt(text);
    case 'duration': {
      const duration = parseGoDuration(text);
      return duration.ok ? { ok: true, value: goDurationToMs(duration.nanoseconds) } : { ok: false, message: duration.error };
    }
    case 'ip': {
      const trimmed = text.trim();
      if (trimmed === '' || isIP(trimmed) === 0) return { ok: false, message: `failed to parse IP: ${goQuote(text)}` };
      return { ok: true, value: trimmed };
    }
  }
}

/** `strconv.ParseInt(s, 0, 64)`: optional sign, 0x/0o/0b prefixes, a leading 0 for octal, `_` between digits. */
function parseGoInt(text: string): ValueParse {
  const syntax = { ok: false as const, message: `strconv.ParseInt: parsing ${goQuote(text)}: invalid syntax` };
  const negative = text.startsWith('-');
  const unsigned = text.startsWith('-') || text.startsWith('+') ? text.slice(1) : text;
  if (unsigned === '') return syntax;
  let base = 10;
  let digits = unsigned;
  if (unsigned.length > 1 && unsigned[0] === '0') {
    const prefix = unsigned[1]!.toLowerCase();
    base = prefix === 'x' ? 16 : prefix === 'b' ? 2 : 8;
    digits = 'xbo'.includes(prefix) ? unsigned.slice(2) : unsigned.slice(1);
  }
  if (unsigned.includes('_') && !underscoresBetweenDigits(unsigned)) return syntax;
  digits = digits.replaceAll('_', '');
  if (digits === '') return syntax;
  let magnitude = 0n;
  for (const ch of digits.toLowerCase()) {
    const digit = Number.parseInt(ch, 36);
    if (Number.isNaN(digit) || digit >= base) return syntax;
    magnitude = magnitude * BigInt(base) + BigInt(digit);
  }
  const value = negative ? -magnitude : magnitude;
  if (value > 2n ** 63n - 1n || value < -(2n ** 63n)) return { ok: false, message: `strconv.ParseInt: parsing ${goQuote(text)}: value out of range` };
  return { ok: true, value: Number(value) };
}

/** Go's `underscoreOK`: each `_` follows a digit or the base prefix and is followed by a digit. */
function underscoresBetweenDigits(unsigned: string): boolean {
  let saw: 'start' | 'digit' | 'underscore' | 'other' = 'start';
  let i = 0;
  const hex = /^0[xX]/.test(unsigned);
  if (/^0[xXoObB]/.test(unsigned)) {
    i = 2;
    saw = 'digit';
  }
  for (; i < unsigned.length; i++) {
    const ch = unsigned[i]!;
    if (/[0-9]/.test(ch) || (hex && /[a-fA-F]/.test(ch))) saw = 'digit';
    else if (ch === '_') {
      if (saw !== 'digit') return false;
      saw = 'underscore';
    } else {
      if (saw === 'underscore') return false;
      saw = 'other';
    }
  }
  return saw !== 'underscore';
}

function validate(o: ServeOptions): string | undefined {
  if (o.securePort < 1 || o.securePort > 65535) return `--secure-port ${o.securePort} must be between 1 and 65535, inclusive. It cannot be turned off with 0`;
  if (o.maxRequestsInflight < 0) return '--max-requests-inflight can not be negative value';
  if (o.maxMutatingRequestsInflight < 0) return '--max-mutating-requests-inflight can not be negative value';
  if (o.maxWatchesPerUser < 0) return '--max-watches-per-user can not be negative value';
  if (o.executionThreads < 0 || o.executionThreads > MAX_EXECUTION_THREADS) return `--execution-threads ${o.executionThreads} must be between 0 and ${MAX_EXECUTION_THREADS}, inclusive`;
  if (o.http2MaxStreamsPerConnection > 0xffff_ffff) return `--http2-max-streams-per-connection ${o.http2MaxStreamsPerConnection} must be at most 4294967295`;
  if (o.requestTimeoutMs < 0) return '--request-timeout can not be negative value';
  if (!(STORAGE_BACKENDS as readonly string[]).includes(o.storageBackend)) {
    return `--storage-backend invalid, allowed values: ${STORAGE_BACKENDS.join(', ')}. If not specified, it will default to 'leveldb'`;
  }
  if (o.storageBackend === 'etcd3' && o.etcdServers.length === 0) return '--etcd-servers must be specified';
  if ((o.tlsCertFile === '') !== (o.tlsPrivateKeyFile === '')) return '--tls-cert-file and --tls-private-key-file must be specified together';
  if (o.authorizationConfig !== '' && o.authorizationMode.length > 0) return '--authorization-config can not be specified together with --authorization-mode';
  if (o.encryptionProviderConfigAutomaticReload && o.encryptionProviderConfig === '') {
    return '--encryption-provider-config-automatic-reload must be set with --encryption-provider-config';
  }
  if (o.dataDir === '') return '--data-dir must not be empty';
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(o.apiDomain) || o.apiDomain.length > 200) {
    return `--api-domain ${goQuote(o.apiDomain)} must be a lower-case DNS subdomain, such as k8s.io`;
  }
  return undefined;
}

const TYPE_NAMES: Record<FlagKind, string> = { string: 'string', int: 'int', bool: '', duration: 'duration', ip: 'ip', strings: 'strings' };

function defaultText(spec: FlagSpec): string {
  const value = spec.default;
  switch (spec.kind) {
    case 'string':
      return value === '' ? '' : ` (default ${goQuote(String(value))})`;
    case 'strings':
      return (value as string[]).length === 0 ? '' : ` (default [${(value as string[]).join(',')}])`;
    case 'bool':
      return value === true ? ' (default true)' : '';
    case 'int':
      return value === 0 ? '' : ` (default ${value})`;
    case 'duration':
      return value === 0 ? '' : ` (default ${formatGoDuration(BigInt(Math.round((value as number) * 1e6)))})`;
    case 'ip':
      return value === '' ? '' : ` (default ${value})`;
  }
}

/** The `--help` text, laid out as pflag lays out flag usages. */
export function serveHelp(): string {
  const entries = [
    ...SERVE_FLAGS.map((spec) => {
      const type = spec.typeName ?? TYPE_NAMES[spec.kind];
      const names = spec.shorthand === undefined ? `      --${spec.name}` : `  -${spec.shorthand}, --${spec.name}`;
      return { left: `${names}${type === '' ? '' : ` ${type}`}`, right: `${spec.help}${defaultText(spec)}` };
    }),
    { left: '  -h, --help', right: 'help for serve' },
  ].sort((a, b) => (flagName(a.left) < flagName(b.left) ? -1 : 1));
  const width = Math.max(...entries.map((e) => e.left.length));
  const lines = entries.map((e) => `${e.left.padEnd(width)}   ${e.right}`);
  return ['Runs the Fairway API server.', '', 'Usage:', `  ${COMMAND_PATH} [flags]`, '', 'Flags:', ...lines, ''].join('\n');
}

const flagName = (left: string) => left.slice(left.indexOf('--') + 2);
