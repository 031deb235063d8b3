// `fairway serve`: kube-apiserver's flags → the store (LevelDB under <data-dir>/store unless
// --storage-backend=memory) → the server (flow control, bootstrap configuration, REST, watch) →
// TLS on --bind-address:--secure-port, HTTP/2 and HTTP/1.1 (secure-server.ts) →
// <data-dir>/admin.kubeconfig once it listens. SIGTERM or SIGINT: stop accepting (GOAWAY on HTTP/2),
// end watches cleanly, let in-flight requests finish, close the store, exit 0. A second signal
// exits at once.
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import { realClock } from '../../engine/clock.ts';
import { loadWorkEstimatorConfig } from '../../engine/flowcontrol/work-estimator-file.ts';
import { readConfigFile } from '../../engine/config/config-file.ts';
import type { UserInfo } from '../../engine/auth/user-info.ts';
import type { WorkEstimatorConfig } from '../../engine/flowcontrol/work-estimator-config.ts';
import { createStore } from '../../engine/store/store.ts';
import type { Store } from '../../engine/store/store-types.ts';
import type { StorageBackend } from '../../engine/store/backend.ts';
import { createMemoryBackend } from '../../engine/store/memory/memory-backend.ts';
import { createLevelDbBackend } from '../../engine/store/leveldb/leveldb-backend.ts';
import { parseCommandLine, processOutput, type Command } from '../../cli/command.ts';
import { SERVE_COMMAND, serveOptions, type ServeOptions } from './serve-flags.ts';
import { createLogger, type Logger } from '../log.ts';
import { CERT_FILES, checkClientCaBundle, checkServingPair, ensureServingCertificates } from '../security/tls.ts';
import { writeAdminKubeconfig } from '../data-dir/kubeconfig.ts';
import { readTokenFile } from '../security/token-file.ts';
import { writeFileAtomic } from '../data-dir/atomic-write.ts';
import { recoveryHint } from '../data-dir/recovery-hint.ts';
import { keepSecretFilePrivate, preparePrivateDataDir } from '../data-dir/data-dir.ts';
import { createFairwayServer } from '../assembly/assembled-server.ts';
import { createSecureApiServer } from '../transport/secure-server.ts';
import { createAccessControl, type AccessControl } from '../security/access-control.ts';
import { isHealthPath } from '../handlers/health.ts';
import { startEncryptionAtRest, storedResources, type EncryptionAtRest } from '../security/encryption-at-rest.ts';
import { startExecutionPlane } from '../assembly/execution-plane.ts';

export const ADMIN_TOKEN_FILE = 'admin.token';
export const ADMIN_KUBECONFIG_FILE = 'admin.kubeconfig';
export const ADMIN_USER: UserInfo = { name: 'admin', uid: 'admin', groups: ['system:masters', 'system:authenticated'] };
/** How long shutdown waits for in-flight requests. */
const DRAIN_TIMEOUT_MS = 10_000;

export const serveCommand: Command = {
  spec: SERVE_COMMAND,
  run: async (args) => {
    const parsed = parseCommandLine(SERVE_COMMAND, args, processOutput);
    if ('exitCode' in parsed) return parsed.exitCode;
    const logger = createLogger('serve.ts');
    try {
      return await serve(serveOptions(parsed.values), logger);
    } catch (error) {
      logger.error(error instanceof Error ? error.message : String(error));
      return 1;
    }
  },
};

/** The admin's bearer token: generated once, kept in <data-dir>/admin.token (0600). */
async function adminToken(dataDir: string): Promise<string> {
  const path = join(dataDir, ADMIN_TOKEN_FILE);
  try {
    const token = (await readFile(path, 'utf8')).trim();
    if (token !== '') return token;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const token = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, `${token}\n`, 0o600);
  return token;
}

async function tokens(options: ServeOptions, admin: string, logger: Logger): Promise<Map<string, UserInfo>> {
  const map = new Map<string, UserInfo>();
  if (options.tokenAuthFile !== '') {
    const file = await readTokenFile(options.tokenAuthFile);
    if (!file.ok) throw new Error(file.error);
    for (const warning of file.warnings) logger.warning(warning);
    for (const [token, user] of file.tokens) map.set(token, { name: user.name, uid: user.uid, groups: user.groups });
  }
  map.set(admin, ADMIN_USER);
  return map;
}

/** The etcd client (gRPC, protobuf) is loaded only for --storage-backend=etcd3: it is a third of a LevelDB restart's module loading. */
async function etcdBackend(options: ServeOptions): Promise<StorageBackend> {
  const [{ createEtcdBackend }, { parseEtcdServers }] = await Promise.all([
    import('../../engine/store/etcd/etcd-backend.ts'),
    import('../../engine/store/etcd/etcd-client.ts'),
  ]);
  return createEtcdBackend({ endpoints: parseEtcdServers(options.etcdServers.join(',')), clock: realClock() });
}

async function openStore(options: ServeOptions, encryption: EncryptionAtRest | undefined): Promise<Store> {
  const backend =
    options.storageBackend === 'memory'
      ? createMemoryBackend()
      : options.storageBackend === 'etcd3'
        ? await etcdBackend(options)
        : createLevelDbBackend({ location: join(options.dataDir, 'store'), recoveryHint: recoveryHint(options.dataDir) });
  return createStore({ backend, clock: realClock(), transformer: encryption?.holder, windowMaxBytes: options.watchCacheHistoryBytes });
}

/** Why the server could not listen, naming the flag that would fix it. */
export function listenProblem(error: unknown, bindAddress: string, port: number): string {
  const where = `${isIP(bindAddress) === 6 ? `[${bindAddress}]` : bindAddress}:${port}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case 'EADDRINUSE':
      return (
        `--secure-port ${port}: ${where} is already in use by another process (another server, or a ` +
        'fairway serve still running); stop it or choose a free port with --secure-port'
      );
    case 'EACCES':
      return `--secure-port ${port}: permission denied to listen on ${where}; ports below 1024 need privileges: choose a port from 1024 up with --secure-port`;
    case 'EADDRNOTAVAIL':
      return (
        `--bind-address ${bindAddress} is not an address of this machine; give one of its addresses with ` +
        '--bind-address (127.0.0.1 for this machine only, 0.0.0.0 for every interface)'
      );
    default:
      return `failed to listen on ${where} (--bind-address, --secure-port): ${(error as Error).message}`;
  }
}

/** The URL clients use: the bind address, or loopback when bound to every address. */
export function serverUrl(bindAddress: string, port: number): string {
  const host = bindAddress === '0.0.0.0' ? '127.0.0.1' : bindAddress === '::' ? '::1' : bindAddress;
  return `https://${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
}

/** How long a stop signal waits for a start-up in progress before the process exits regardless. */
const STARTUP_STOP_GRACE_MS = 5_000;

async function serve(options: ServeOptions, logger: Logger): Promise<number> {
  const stop = stopSignal(logger);
  await preparePrivateDataDir(options.dataDir, logger);
  const { certPem, keyPem, caPem } = await servingCertificates(options, logger);
  const clientCa = options.clientCaFile === '' ? undefined : (await readConfigFile(options.clientCaFile)).toString('utf8');
  if (clientCa !== undefined) checkClientCaBundle(clientCa, options.clientCaFile);
  await keepSecretFilePrivate(join(options.dataDir, ADMIN_TOKEN_FILE), logger);
  const admin = await adminToken(options.dataDir);
  const users = await tokens(options, admin, logger);
  const { access, encryption, workEstimator } = await startSecurity(options, users, clientCa, logger);

  const store = await openStore(options, encryption);
  try {
    await store.open();
  } catch (error) {
    encryption?.stop();
    throw error;
  }
  const storeAt = options.storageBackend === 'etcd3' ? options.etcdServers.join(',') : join(options.dataDir, 'store');
  logger.info(`storage ${options.storageBackend} open${options.storageBackend === 'memory' ? '' : ` at ${storeAt}`}, revision ${store.revision()}`);

  const plane = startExecutionPlane(options.executionThreads, logger);
  let url = '';
  const fairway = createFairwayServer({
    store,
    logger,
    apiDomain: options.apiDomain,
    requestTimeoutMs: options.requestTimeoutMs,
    serverConcurrencyLimit: options.maxRequestsInflight + options.maxMutatingRequestsInflight,
    maxWatchesPerUser: options.maxWatchesPerUser,
    enablePriorityAndFairness: options.enablePriorityAndFairness,
    apfEnforce: options.apfEnforce,
    showHiddenMetrics: options.showHiddenMetricsForVersion !== '',
    encodingCacheBytes: options.encodingCacheBytes,
    workEstimator,
    accessControl: access,
    verbosity: options.verbosity,
    serverAddress: () => (url === '' ? '' : new URL(url).host),
    extraHealthChecks: encryption?.healthChecks,
    executionPlane: plane,
  });
  const server = createSecureApiServer({
    certPem,
    keyPem,
    clientCaPem: clientCa,
    http2MaxStreamsPerConnection: options.http2MaxStreamsPerConnection,
    disableHttp2: options.disableHttp2Serving,
    handler: fairway.apiServer.handle,
  });
  // What runs, stopped in this order at shutdown or when the server cannot listen.
  const stopAll = async () => {
    fairway.stop();
    access.stop();
    await plane.close();
    await store.close();
    encryption?.stop();
  };
  try {
    await server.listen(options.securePort, options.bindAddress);
  } catch (error) {
    await stopAll();
    throw new Error(listenProblem(error, options.bindAddress, options.securePort));
  }
  url = serverUrl(options.bindAddress, options.securePort);
  logger.info(`Serving securely on ${options.bindAddress}:${options.securePort}`);
  const kubeconfigPath = join(options.dataDir, ADMIN_KUBECONFIG_FILE);
  await writeAdminKubeconfig(kubeconfigPath, { serverUrl: url, caPem, token: admin });
  logger.info(`admin kubeconfig: ${kubeconfigPath}`);

  const signal = await stop.up();
  logger.info(`received ${signal}, shutting down`);
  const force = () => {
    logger.warning('second signal: exiting now');
    process.exit(1);
  };
  process.once('SIGTERM', force);
  process.once('SIGINT', force);
  fairway.beginShutdown();
  const closed = server.close();
  await fairway.apiServer.drain(DRAIN_TIMEOUT_MS);
  server.destroy();
  await closed;
  await stopAll();
  logger.info('shutdown complete');
  // Nothing should be left running; if a stray handle is, it must not keep the process alive.
  setTimeout(() => process.exit(0), 1_000).unref();
  return 0;
}

/**
 * The stop signal, listened for from the start, so one that arrives while starting up is a clean
 * shutdown too (it takes effect once the server is up, `up()`). A start-up that does not finish soon
 * after (a store or KMS plugin that never answers) must not keep the process: it exits.
 */
function stopSignal(logger: Logger): { up(): Promise<string> } {
  let up = false;
  const signalled = new Promise<string>((resolve) => {
    const onSignal = (signal: string) => {
      resolve(signal);
      if (up) return;
      logger.info(`received ${signal} during start-up; stopping once it is done (at most ${STARTUP_STOP_GRACE_MS / 1000} s)`);
      setTimeout(() => {
        logger.warning(`start-up did not finish within ${STARTUP_STOP_GRACE_MS / 1000} s of ${signal}; exiting now`);
        process.exit(1);
      }, STARTUP_STOP_GRACE_MS).unref();
    };
    process.once('SIGTERM', () => onSignal('SIGTERM'));
    process.once('SIGINT', () => onSignal('SIGINT'));
  });
  return {
    up: () => {
      up = true;
      return signalled;
    },
  };
}

/** The serving pair from --tls-cert-file/--tls-private-key-file, or made once in --cert-dir and reused. */
async function servingCertificates(options: ServeOptions, logger: Logger): Promise<{ certPem: string; keyPem: string; caPem: string }> {
  if (options.tlsCertFile !== '') {
    const certPem = (await readConfigFile(options.tlsCertFile)).toString('utf8');
    const keyPem = (await readConfigFile(options.tlsPrivateKeyFile)).toString('utf8');
    checkServingPair(certPem, keyPem, options.tlsCertFile, options.tlsPrivateKeyFile);
    return { certPem, keyPem, caPem: certPem };
  }
  for (const key of [CERT_FILES.caKey, CERT_FILES.key]) await keepSecretFilePrivate(join(options.certDir, key), logger);
  const certificates = await ensureServingCertificates({ certDir: options.certDir, bindAddress: options.bindAddress });
  if (certificates.written.length > 0) logger.info(`generated ${certificates.written.join(' and ')} certificate(s) in ${options.certDir}`);
  return { ...certificates.serving, caPem: certificates.ca.certPem };
}

/** Access control, encryption at rest and the work estimator's file; what started is stopped again if a later one fails. */
async function startSecurity(
  options: ServeOptions,
  users: Map<string, UserInfo>,
  clientCa: string | undefined,
  logger: Logger,
): Promise<{ access: AccessControl; encryption: EncryptionAtRest | undefined; workEstimator: WorkEstimatorConfig | undefined }> {
  const access = await createAccessControl({
    authentication: { tokens: users, anonymousAuth: options.anonymousAuth, clientCaPem: clientCa },
    options,
    clock: realClock(),
    logger,
    isPublicPath: isHealthPath,
  });
  if (!access.ok) throw new Error(access.error);

  let encryption: EncryptionAtRest | undefined;
  if (options.encryptionProviderConfig !== '') {
    const started = await startEncryptionAtRest({
      file: options.encryptionProviderConfig,
      automaticReload: options.encryptionProviderConfigAutomaticReload,
      apiDomain: options.apiDomain,
      clock: realClock(),
      logger,
      resources: storedResources(options.apiDomain),
    });
    if (!started.ok) {
      access.value.stop();
      throw new Error(started.error);
    }
    encryption = started.value;
  }

  let workEstimator: WorkEstimatorConfig | undefined;
  if (options.apfWorkEstimatorConfigFile !== '') {
    const loaded = await loadWorkEstimatorConfig(options.apfWorkEstimatorConfigFile);
    if (!loaded.ok) {
      access.value.stop();
      encryption?.stop();
      throw new Error(loaded.error);
    }
    workEstimator = loaded.config;
  }
  return { access: access.value, encryption, workEstimator };
}
