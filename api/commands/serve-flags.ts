// `fairway serve` flags: kube-apiserver's names, defaults and accepted forms (the command-line
// layer in cli/ parses them as pflag does), so scripts written for kube-apiserver work. Also the
// flags other commands share with serve (`--data-dir`, `--api-domain`), declared once here.
import { join } from 'node:path';
import { flag, type FlagValues } from '../../cli/flag-table.ts';
import { parseFlags } from '../../cli/parse-flags.ts';
import { commandHelp, type CommandSpec } from '../../cli/command.ts';
import { DEFAULT_API_DOMAIN } from '../../engine/resources/api-domain.ts';
import { DEFAULT_MAX_WATCHES_PER_USER } from '../handlers/watch-limit.ts';
import { defaultThreadCount } from '../../workers/piscina-executor.ts';
import { DEFAULT_ENCODING_CACHE_BYTES } from '../handlers/encoded-items.ts';
import { STORE_DEFAULTS } from '../../engine/store/store.ts';

/** More threads than this only compete for the same cores. */
export const MAX_EXECUTION_THREADS = 256;

export const STORAGE_BACKENDS = ['leveldb', 'etcd3', 'memory'] as const;

/** component-base accepts only the release before the running one (1.32) for --show-hidden-metrics-for-version. */
export const PREVIOUS_MINOR = '1.31';
const notNegative = (value: number, name: string) => (value < 0 ? `${name} can not be negative value` : undefined);

/** `--data-dir`: serve's, and the offline storage commands' (which read what serve wrote). */
export const DATA_DIR_FLAG = flag('string', 'data-dir', './data', 'Directory for stored objects and generated files.', {
  valueName: 'DIR',
  validate: (value, name) => (value === '' ? `${name} must not be empty` : undefined),
});

/** `--api-domain`: the domain of every API group (flowcontrol.apiserver.<domain>, ...). */
export const API_DOMAIN_FLAG = flag(
  'string',
  'api-domain',
  DEFAULT_API_DOMAIN,
  'Domain part of every API group served and read: flowcontrol.apiserver.<domain>, apiserver.config.<domain>, ...',
  {
    valueName: 'DOMAIN',
    validate: (value, name) =>
      !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value) || value.length > 200
        ? `${name} ${JSON.stringify(value)} must be a lower-case DNS subdomain, such as k8s.io`
        : undefined,
  },
);

/** Every flag of `fairway serve`, keyed by its ServeOptions property (help sorts them by name). */
export const SERVE_FLAGS = {
  admissionControlConfigFile: flag('string', 'admission-control-config-file', '', 'File with admission control configuration (an AdmissionConfiguration).'),
  anonymousAuth: flag(
    'bool',
    'anonymous-auth',
    false,
    'Treat requests that no authenticator rejects and none accepts as user system:anonymous in group system:unauthenticated.',
  ),
  apiDomain: { ...API_DOMAIN_FLAG, valueName: 'string' },
  apfEnforce: flag(
    'bool',
    'apf-enforce',
    true,
    'Reject and queue requests as API Priority and Fairness decides. When false, requests are classified and measured but never held back.',
  ),
  apfWorkEstimatorConfigFile: flag(
    'string',
    'apf-work-estimator-config-file',
    '',
    "File (YAML or JSON) with the APF work estimator's tunables in the form of Kubernetes' WorkEstimatorConfig (minimumSeats, maximumSeatsLimit, " +
      "listWorkEstimatorConfig, mutatingWorkEstimatorConfig); fields left out keep kube-apiserver's values.",
  ),
  authorizationConfig: flag(
    'string',
    'authorization-config',
    '',
    'File with an AuthorizationConfiguration (an ordered chain of authorizers). Cannot be combined with --authorization-mode.',
  ),
  authorizationMode: flag('strings', 'authorization-mode', [], 'Ordered list of authorization plugins, comma-separated.'),
  bindAddress: flag('ip', 'bind-address', '127.0.0.1', 'The IP address on which to listen for the --secure-port port.'),
  certDir: flag(
    'string',
    'cert-dir',
    '',
    'Directory for the generated CA and serving certificate, created on first start and reused after. Ignored when --tls-cert-file and ' +
      '--tls-private-key-file are given. Empty means pki under --data-dir.',
  ),
  clientCaFile: flag(
    'string',
    'client-ca-file',
    '',
    'If set, a client certificate signed by one of these CAs authenticates its request, as the user in its CommonName and the groups in its Organization.',
  ),
  dataDir: { ...DATA_DIR_FLAG, valueName: 'string' },
  disableHttp2Serving: flag('bool', 'disable-http2-serving', false, 'If true, HTTP2 serving will be disabled [default=false]'),
  enableAdmissionPlugins: flag('strings', 'enable-admission-plugins', [], 'Admission plugins to enable in addition to the default ones, comma-separated.'),
  enablePriorityAndFairness: flag(
    'bool',
    'enable-priority-and-fairness',
    true,
    'Classify requests with FlowSchemas and admit them through API Priority and Fairness. When false, --max-requests-inflight and ' +
      '--max-mutating-requests-inflight limit them instead.',
  ),
  encodingCacheBytes: flag(
    'int',
    'encoding-cache-bytes',
    DEFAULT_ENCODING_CACHE_BYTES,
    "Bytes the stored objects' kept encodings besides JSON (each one's YAML as a list item, its protobuf message) may hold in all; " +
      'past it, they are made per response. 0 keeps none.',
    { validate: notNegative },
  ),
  encryptionProviderConfig: flag('string', 'encryption-provider-config', '', 'File with an EncryptionConfiguration for encrypting stored objects.'),
  encryptionProviderConfigAutomaticReload: flag(
    'bool',
    'encryption-provider-config-automatic-reload',
    false,
    'Check --encryption-provider-config every minute and use a changed file without a restart; an invalid change is logged and the configuration in ' +
      'force is kept.',
  ),
  executionThreads: flag(
    'int',
    'execution-threads',
    defaultThreadCount(),
    'Worker threads that run the CPU-heavy stages of admitted requests (encoding large lists, YAML, Tables), so the main thread stays free to admit, ' +
      'reject and serve other priority levels. The default is the cores left after the main thread (at least 1); 0 runs that work on the main thread. ' +
      `At most ${MAX_EXECUTION_THREADS}.`,
    {
      defaultText: 'cores - 1, at least 1',
      validate: (value, name) =>
        value < 0 || value > MAX_EXECUTION_THREADS ? `${name} ${value} must be between 0 and ${MAX_EXECUTION_THREADS}, inclusive` : undefined,
    },
  ),
  etcdServers: flag('strings', 'etcd-servers', [], 'etcd servers to connect to (scheme://ip:port), comma-separated. Required with --storage-backend=etcd3.'),
  http2MaxStreamsPerConnection: flag(
    'int',
    'http2-max-streams-per-connection',
    0,
    "The limit that the server gives to clients for the maximum number of streams in an HTTP/2 connection. Zero means to use golang's default (100).",
    {
      validate: (value, name) => (value < 0 || value > 0xffff_ffff ? `${name} ${value} must be between 0 and 4294967295` : undefined),
    },
  ),
  maxMutatingRequestsInflight: flag(
    'int',
    'max-mutating-requests-inflight',
    200,
    "The server's share of concurrent mutating requests; with priority and fairness it is added to --max-requests-inflight to give the total " +
      'concurrency limit. Zero means no limit.',
    { validate: notNegative },
  ),
  maxRequestsInflight: flag(
    'int',
    'max-requests-inflight',
    400,
    "The server's share of concurrent non-mutating requests; with priority and fairness it is added to --max-mutating-requests-inflight to give the " +
      'total concurrency limit. Zero means no limit.',
    { validate: notNegative },
  ),
  maxWatchesPerUser: flag(
    'int',
    'max-watches-per-user',
    DEFAULT_MAX_WATCHES_PER_USER,
    'The most watches one user may have open at once; one more is answered 429 with Retry-After. Zero means no limit.',
    {
      validate: notNegative,
    },
  ),
  requestTimeoutMs: flag(
    'duration',
    'request-timeout',
    60_000,
    'How long a request may run before the server times it out. Watch and other long-running requests are exempt.',
    { validate: notNegative },
  ),
  securePort: flag('int', 'secure-port', 6443, 'The port on which to serve HTTPS with authentication and authorization.', {
    validate: (value, name) =>
      value < 1 || value > 65535 ? `${name} ${value} must be between 1 and 65535, inclusive. It cannot be turned off with 0` : undefined,
  }),
  showHiddenMetricsForVersion: flag(
    'string',
    'show-hidden-metrics-for-version',
    '',
    `The previous minor version (${PREVIOUS_MINOR}) whose hidden metrics to show again: metrics deprecated before this release are hidden ` +
      'unless asked for, so that their removal in the next release is noticed while they can still be read.',
    {
      valueName: 'string',
      validate: (value, name) =>
        value === '' || value === PREVIOUS_MINOR
          ? undefined
          : `${name} must be omitted or have the value '${PREVIOUS_MINOR}'. Only the previous minor version is allowed`,
    },
  ),
  storageBackend: flag('string', 'storage-backend', 'leveldb', `Where objects are stored: ${STORAGE_BACKENDS.map((b) => `'${b}'`).join(', ')}.`, {
    validate: (value, name) =>
      (STORAGE_BACKENDS as readonly string[]).includes(value)
        ? undefined
        : `${name} invalid, allowed values: ${STORAGE_BACKENDS.join(', ')}. If not specified, it will default to 'leveldb'`,
  }),
  tlsCertFile: flag(
    'string',
    'tls-cert-file',
    '',
    'File with the default x509 serving certificate (followed by any intermediates). If not given, one is generated in --cert-dir.',
  ),
  tlsPrivateKeyFile: flag('string', 'tls-private-key-file', '', 'File with the private key matching --tls-cert-file.'),
  tokenAuthFile: flag('string', 'token-auth-file', '', 'If set, the CSV file (token,user,uid,"group1,group2") whose bearer tokens authenticate requests.'),
  /** klog verbosity; 3 and above logs every request. */
  verbosity: flag('int', 'v', 0, 'number for the log level verbosity (3 and above: one access log line per request)', { shorthand: 'v', valueName: 'Level' }),
  watchCacheHistoryBytes: flag(
    'int',
    'watch-cache-history-bytes',
    STORE_DEFAULTS.windowMaxBytes,
    "Bytes of past object versions the watch cache keeps per resource for watches and lists at an older resourceVersion, counted by each version's " +
      'stored size (it holds about three times that in memory); older events are dropped as after 5 minutes, and a watch from before them ' +
      'gets 410 Gone. The newest event is always kept.',
    { validate: notNegative },
  ),
};

/**
 * The parsed flags. `certDir` is never empty: it defaults to `<dataDir>/pki`; `requestTimeoutMs`
 * is --request-timeout in milliseconds; `verbosity` is -v.
 */
export type ServeOptions = FlagValues<typeof SERVE_FLAGS>;

export const SERVE_COMMAND: CommandSpec<typeof SERVE_FLAGS> = {
  path: 'fairway serve',
  usage: 'fairway serve [flags]',
  description: 'Runs the Fairway API server.',
  flags: SERVE_FLAGS,
  check: (o) => {
    if (o.storageBackend === 'etcd3' && o.etcdServers.length === 0) return '--etcd-servers must be specified';
    if ((o.tlsCertFile === '') !== (o.tlsPrivateKeyFile === '')) return '--tls-cert-file and --tls-private-key-file must be specified together';
    if (o.authorizationConfig !== '' && o.authorizationMode.length > 0) return '--authorization-config can not be specified together with --authorization-mode';
    if (o.encryptionProviderConfigAutomaticReload && o.encryptionProviderConfig === '')
      return '--encryption-provider-config-automatic-reload must be set with --encryption-provider-config';
    return undefined;
  },
};

/** What the flags leave to be filled in: `--cert-dir` defaults to `<data-dir>/pki`. */
export function serveOptions(values: ServeOptions): ServeOptions {
  return values.certDir === '' ? { ...values, certDir: join(values.dataDir, 'pki') } : values;
}

export type FlagParseResult = { kind: 'options'; options: ServeOptions } | { kind: 'help'; text: string } | { kind: 'error'; message: string };

/** Parses `fairway serve` arguments (without the command words) and checks the values. */
export function parseServeFlags(argv: readonly string[]): FlagParseResult {
  const parsed = parseFlags(SERVE_COMMAND, argv);
  if (parsed.kind === 'help') return { kind: 'help', text: serveHelp() };
  if (parsed.kind === 'error') return parsed;
  return { kind: 'options', options: serveOptions(parsed.values) };
}

export function serveHelp(): string {
  return commandHelp(SERVE_COMMAND);
}
