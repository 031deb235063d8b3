// The whole server in the test's own process, over plain HTTP on an ephemeral loopback port, with
// the memory backend: fast enough for one per test file. The admin token is fixed per server.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realClock } from '../../../engine/clock.ts';
import type { UserInfo } from '../../../engine/auth/user-info.ts';
import { createMemoryBackend } from '../../../engine/store/memory/memory-backend.ts';
import { createStore } from '../../../engine/store/store.ts';
import type { Store } from '../../../engine/store/store-types.ts';
import type { StorageBackend } from '../../../engine/store/backend.ts';
import { createFairwayServer, type FairwayServer } from '../../assembly/assembled-server.ts';
import { silentLogger, type Logger } from '../../log.ts';
import { generateCertificateAuthority, issueServingCertificate } from '../../../engine/x509/certificates.ts';
import { createSecureApiServer, type SecureServer } from '../../transport/secure-server.ts';
import { HTTP1_SERVER_OPTIONS, installHttp1Rules } from '../../transport/http1-connection.ts';
import { createAccessControl, type AccessControl } from '../../security/access-control.ts';
import { isHealthPath } from '../../handlers/health.ts';
import { createTestClient, type TestClient } from '../../testing/http-client.ts';
import type { Filter } from '../../request/http-context.ts';
import type { ExecutionPlane } from '../../assembly/execution-plane.ts';

export interface InProcessServer {
  client: TestClient;
  /** The listening node:http server (tests watch its connections). */
  httpServer: Server;
  token: string;
  baseUrl: string;
  store: Store;
  fairway: FairwayServer;
  /** With `http2`: the same server over TLS with ALPN h2 (as `fairway serve` listens), and its CA. */
  h2?: { url: string; caPem: string; server: SecureServer } | undefined;
  /** Resolves once the bootstrap configuration is in the store (/readyz passes). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface InProcessOptions {
  /** More bearer tokens. */
  users?: ReadonlyMap<string, UserInfo>;
  enablePriorityAndFairness?: boolean;
  requestTimeoutMs?: number;
  /** Events the watch cache keeps per resource (small values make 410 Expired easy to reach). */
  windowCapacity?: number | undefined;
  /** --watch-cache-history-bytes: what one resource's window may hold. */
  windowMaxBytes?: number | undefined;
  /** Instead of a fresh memory backend (a LevelDB backend with injected faults). */
  backend?: StorageBackend;
  /** After a failed write, how often the store tries to take writes again. */
  writeRetryMs?: number | undefined;
  /** `--authorization-mode` (e.g. `['AlwaysDeny']`: 403 for everyone but system:masters); none: everything is allowed. */
  authorizationMode?: string[] | undefined;
  /** The store's largest write (small values make "request is too large" easy to reach). */
  maxRequestBytes?: number | undefined;
  /** Filters after authorization (tests that look at how the chain runs). */
  extraFilters?: readonly Filter[] | undefined;
  /** --encoding-cache-bytes (0: no YAML item is kept). */
  encodingCacheBytes?: number | undefined;
  /** Instead of running every stage inline (tests that look at where work runs). */
  executionPlane?: ExecutionPlane | undefined;
  /** The server's log (default: silent). */
  logger?: Logger | undefined;
  /** Also listen over TLS with HTTP/2, on a second port (`h2`). */
  http2?: boolean | undefined;
}

export async function startInProcessServer(options: InProcessOptions = {}): Promise<InProcessServer> {
  const store = createStore({
    backend: options.backend ?? createMemoryBackend(),
    clock: realClock(),
    windowCapacity: options.windowCapacity,
    windowMaxBytes: options.windowMaxBytes,
    writeRetryMs: options.writeRetryMs,
    maxRequestBytes: options.maxRequestBytes,
  });
  await store.open();
  const token = randomBytes(16).toString('hex');
  const tokens = new Map<string, UserInfo>(options.users ?? []);
  tokens.set(token, { name: 'admin', groups: ['system:masters'] });
  let address = '127.0.0.1:0';
  const built = await createAccessControl({
    authentication: { tokens },
    ...(options.authorizationMode !== undefined
      ? {
          options: {
            authorizationConfig: '',
            authorizationMode: options.authorizationMode,
            admissionControlConfigFile: '',
            enableAdmissionPlugins: [],
            apiDomain: 'k8s.io',
          },
        }
      : {}),
    clock: realClock(),
    logger: options.logger ?? silentLogger,
    isPublicPath: isHealthPath,
  });
  if (!built.ok) throw new Error(built.error);
  const accessControl: AccessControl = built.value;
  const fairway = createFairwayServer({
    store,
    logger: options.logger ?? silentLogger,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    serverConcurrencyLimit: 600,
    enablePriorityAndFairness: options.enablePriorityAndFairness ?? true,
    apfEnforce: true,
    serverAddress: () => address,
    accessControl,
    extraFilters: options.extraFilters,
    encodingCacheBytes: options.encodingCacheBytes,
    ...(options.executionPlane !== undefined ? { executionPlane: options.executionPlane } : {}),
  });
  const server = createServer(HTTP1_SERVER_OPTIONS, fairway.apiServer.handle);
  installHttp1Rules(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  address = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const baseUrl = `http://${address}`;
  const client = createTestClient(baseUrl, { token });
  const h2 = options.http2 === true ? await listenH2(fairway) : undefined;
  return {
    client,
    httpServer: server as unknown as Server,
    token,
    baseUrl,
    store,
    fairway,
    h2,
    async ready() {
      while ((await client.get('/readyz')).status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    },
    async close() {
      fairway.beginShutdown();
      h2?.server.destroy();
      await h2?.server.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      await fairway.apiServer.drain(5_000);
      server.closeAllConnections();
      await closed;
      fairway.stop();
      accessControl.stop();
      await store.close();
    },
  };
}

async function listenH2(fairway: FairwayServer): Promise<InProcessServer['h2']> {
  const ca = await generateCertificateAuthority();
  const serving = await issueServingCertificate(ca, { hosts: ['127.0.0.1'] });
  const server = createSecureApiServer({
    certPem: serving.certPem,
    keyPem: serving.keyPem,
    http2MaxStreamsPerConnection: 0,
    handler: fairway.apiServer.handle,
  });
  await server.listen(0, '127.0.0.1');
  return { url: `https://127.0.0.1:${(server.server.address() as AddressInfo).port}`, caPem: ca.certPem, server };
}
