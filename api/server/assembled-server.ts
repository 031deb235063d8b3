// The whole server minus the socket: over an open store it starts the flow controller (following
// the stored PLCs and FlowSchemas), the bootstrap ensurer, metrics, and builds the request path
// (filters and handlers). `fairway serve` puts it behind HTTPS; tests may put it behind plain
// HTTP in-process. `stop()` undoes everything but the store, which the caller owns.
import { randomInt, randomUUID } from 'node:crypto';
import { retry, shareReplay, timer, type Subscription } from 'rxjs';
import { realClock, formatRfc3339, type Clock } from '../../engine/clock.ts';
import { toRxScheduler } from '../../engine/clock-adapters.ts';
import { FlowController } from '../../engine/flowcontrol/controller.ts';
import { watchFlowcontrolConfig } from '../../engine/flowcontrol/config-stream.ts';
import { CONFIG_PRODUCER_MANAGER, startBootstrapEnsurer } from '../../engine/flowcontrol/bootstrap-ensurer.ts';
import { startDanglingStatusWriter } from '../../engine/flowcontrol/dangling-status.ts';
import { startGarbageCollector } from '../../engine/flowcontrol/garbage-collector.ts';
import { InterestedWatches } from '../../engine/flowcontrol/interested-watches.ts';
import { ObjectCountTracker, startObjectCountPolling } from '../../engine/flowcontrol/object-count-tracker.ts';
import { groupResourceKey } from '../../engine/flowcontrol/work-estimate.ts';
import type { WorkEstimatorConfig } from '../../engine/flowcontrol/work-estimator-config.ts';
import { apiGroupsFor, flowcontrolApiVersion, FLOWCONTROL_VERSION } from '../../engine/resources/api-domain.ts';
import { FLOW_SCHEMA, FLOWCONTROL_KINDS, PRIORITY_LEVEL, storeResourceInfo } from '../../engine/resources/kinds.ts';
import type { Store } from '../../engine/store/store-types.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import { resourcePrefix } from '../../engine/store/store.ts';
import { fairwayDiscoveryModel } from '../discovery/discovery.ts';
import type { Filter } from './http-context.ts';
import type { Logger } from '../log.ts';
import { createApiServer, type ApiServer, type RouteHandler } from './request-path.ts';
import { createAccessLog } from './access-log.ts';
import { createPriorityAndFairnessFilter } from '../filters/priority-and-fairness.ts';
import { createFairwayMetrics } from '../metrics/fairway-metrics.ts';
import { metricsHandler } from '../metrics/metrics-handler.ts';
import { storageObjectsFamily } from '../metrics/storage-objects.ts';
import { createApfDebugHandlers } from '../debug/apf-dump.ts';
import { createRequestMetricsFilter } from '../metrics/request-metrics.ts';
import { createDescriptionHandler, describedPaths } from '../handlers/discovery.ts';
import { ServedLabels } from '../metrics/served-labels.ts';
import { KindRegistry, type ObjectRegistry } from '../../engine/registry/kind-registry.ts';
import type { HealthCheck } from '../handlers/health.ts';
import { createResourceHandler, type ResourceRoute } from '../handlers/resource.ts';
import { DEFAULT_MAX_WATCHES_PER_USER, WatchLimiter } from '../handlers/watch-limit.ts';
import type { FlowcontrolKind } from '../../engine/render/table.ts';
import { managedFieldsRecorder } from '../../engine/patch/patch-applier.ts';
import { executorPatchApplier } from '../../workers/patch-stage.ts';
import { executorYamlDecoder } from '../../workers/decode-yaml.ts';
import { canonicalOrder } from '../../engine/resources/canonical-order.ts';
import { shapeOf } from '../../engine/request/decode.ts';
import type { AccessControl } from '../security/access-control.ts';
import { withReviewRoutes } from '../handlers/review.ts';
import { Counter, Gauge, Registry } from 'prom-client';
import { startExecutionPlane, type ExecutionPlane } from './execution-plane.ts';
import { agedTableRows, DEFAULT_ENCODING_CACHE_BYTES, EncodingBudget, protobufItems, tableRows, yamlItems } from '../handlers/encoded-items.ts';

export interface FairwayServerOptions {
  /** An open store. */
  store: Store;
  logger: Logger;
  apiDomain?: string | undefined;
  requestTimeoutMs: number;
  /** --max-requests-inflight + --max-mutating-requests-inflight. */
  serverConcurrencyLimit: number;
  enablePriorityAndFairness: boolean;
  apfEnforce: boolean;
  /** --show-hidden-metrics-for-version was given: /metrics shows the metrics 1.32 hides. */
  showHiddenMetrics?: boolean | undefined;
  /** The work estimator's tunables (--apf-work-estimator-config-file); Kubernetes' defaults when absent. */
  workEstimator?: WorkEstimatorConfig | undefined;
  /** `host:port` for /api's serverAddressByClientCIDRs. */
  serverAddress: () => string;
  clock?: Clock;
  /** Watches without timeoutSeconds last 1–2× this (kube's --min-request-timeout). */
  minRequestTimeoutMs?: number | undefined;
  /** --max-watches-per-user (0: no limit); absent: the default (handlers/watch-limit.ts). */
  maxWatchesPerUser?: number;
  /** Authentication, authorization, admission and the self-review routes, built in one place (api/security/access-control.ts). */
  accessControl: Pick<AccessControl, 'authenticationFilter' | 'impersonationFilter' | 'authorizationFilter' | 'admission' | 'reviews' | 'registry'>;
  /** Checks added to /healthz, /livez and /readyz (the KMS plugins' health, as kube-apiserver adds it). */
  extraHealthChecks?: readonly HealthCheck[] | undefined;
  /** Filters after authorization, before the handler (tests that look at how the chain runs a request). */
  extraFilters?: readonly Filter[] | undefined;
  /** Where CPU-heavy stages of admitted requests run (api/server/execution-plane.ts); default: inline on the main thread. The caller closes it. */
  executionPlane?: ExecutionPlane;
  /** --encoding-cache-bytes: what the kept YAML items of stored objects may hold (api/handlers/encoded-items.ts). */
  encodingCacheBytes?: number | undefined;
  /** --v: 3 and above logs every request (api/server/access-log.ts). */
  verbosity?: number;
}

export interface FairwayServer {
  apiServer: ApiServer;
  controller: FlowController;
  /** Marks the server as shutting down: /readyz fails from now on. */
  beginShutdown(): void;
  /** Stops the controller and the ensurer (the store stays open). */
  stop(): void;
}

/**
 * Polls the stored-object counts of the resources this server serves into the work estimator's
 * tracker, as kube-apiserver's registry does: a store that is not open fails the poll, and the
 * count it last had goes stale after 3 minutes.
 */
function pollObjectCounts(store: Store, clock: Clock, tracker: ObjectCountTracker, apiDomain: string | undefined): () => void {
  const byKey = new Map(
    FLOWCONTROL_KINDS.map((kind) => {
      const info = storeResourceInfo(kind, apiDomain);
      return [groupResourceKey(info.group, info.resource), resourcePrefix(info)] as const;
    }),
  );
  const stopPolling = startObjectCountPolling({
    clock,
    tracker,
    resources: [...byKey.keys()],
    count: (groupResource) => {
      if (store.state !== 'open') return -1;
      const prefix = byKey.get(groupResource);
      return store.dump().resources.find((r) => r.prefix === prefix)?.objects ?? 0;
    },
    random: Math.random,
  });
  const stopPruning = tracker.startPruning();
  return () => {
    stopPolling();
    stopPruning();
  };
}

export function createFairwayServer(options: FairwayServerOptions): FairwayServer {
  const clock = options.clock ?? realClock();
  const { store, logger, apiDomain } = options;
  const groups = apiGroupsFor(apiDomain);
  const apiVersion = flowcontrolApiVersion(apiDomain);
  const plcStore = store.for(storeResourceInfo(FLOWCONTROL_KINDS[0], apiDomain));
  const fsStore = store.for(storeResourceInfo(FLOWCONTROL_KINDS[1], apiDomain));

  const access = options.accessControl;
  const discoveryModel = fairwayDiscoveryModel(apiDomain, { selfReviews: access.reviews.length > 0 });
  const servedLabels = new ServedLabels(discoveryModel);
  const metrics = createFairwayMetrics(servedLabels, { now: () => clock.now(), showHidden: options.showHiddenMetrics === true });
  storageObjectsFamily(store).registerIn(metrics.registry);
  // kube-apiserver's cacher metric: watches closed because their client stopped reading.
  const terminatedWatchers = new Counter({
    name: 'apiserver_terminated_watchers_total',
    help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
    labelNames: ['group', 'resource'],
    registers: [metrics.registry],
  });
  const watches = new InterestedWatches();
  const objectCounts = new ObjectCountTracker(clock);
  const stopCounting = pollObjectCounts(store, clock, objectCounts, apiDomain);
  const controller = new FlowController({
    clock,
    serverConcurrencyLimit: options.serverConcurrencyLimit,
    defaultWaitLimitMs: Math.min(options.requestTimeoutMs / 4, 60_000),
    apiDomain,
    estimator: {
      objectCount: (groupResource) => objectCounts.get(groupResource),
      watchCount: (info) => watches.countInterested(info),
      // What the store really does: a LIST at resourceVersion "" waits for the cache to reach the
      // backend's revision and is served from it (kube's ConsistentListFromCache).
      consistentListFromCache: store.servesConsistentListsFromCache,
      config: options.workEstimator,
    },
    observer: metrics.flowControl.observer,
    onDigestError: (error, failures) =>
      logger.warning(`digesting the APF configuration failed (${failures} in a row), retrying: ${error instanceof Error ? error.message : String(error)}`),
  });
  metrics.flowControl.attach(controller);
  const subscriptions: Subscription[] = [];
  // One list+watch of the configuration, shared by the controller and the Dangling status writer.
  // A list that fails (a resource a KMS outage makes unreadable) is retried as an informer would.
  const config$ = watchFlowcontrolConfig(plcStore, fsStore).pipe(
    retry({
      delay: (error: unknown, count) => {
        logger.warning(`following the APF configuration failed, retrying: ${error instanceof Error ? error.message : String(error)}`);
        return timer(Math.min(1_000 * 2 ** (count - 1), 30_000), toRxScheduler(clock));
      },
      resetOnSuccess: true,
    }),
    shareReplay({ bufferSize: 1, refCount: true }),
  );
  // As in kube-apiserver, the configuration consumer (digests and the Dangling status it writes)
  // runs only when APF is enabled; the bootstrap objects and the garbage collector run either way.
  if (options.enablePriorityAndFairness) {
    controller.start(config$);
    subscriptions.push(
      startDanglingStatusWriter(controller.digested$, {
        flowSchemas: fsStore,
        clock,
        onError: (name, error) =>
          logger.warning(`writing the Dangling condition of FlowSchema ${name} failed: ${error instanceof Error ? error.message : String(error)}`),
      }),
    );
  }
  subscriptions.push(
    startGarbageCollector(config$, {
      priorityLevels: plcStore,
      flowSchemas: fsStore,
      onError: (object, error) =>
        logger.warning(`removing the garbage collector's finalizer of ${object} failed: ${error instanceof Error ? error.message : String(error)}`),
    }),
  );

  const nowTime = () => formatRfc3339(clock.now());
  const recorder = managedFieldsRecorder(apiVersion, nowTime);
  const producerWrite = (previous: KubeObject | undefined, next: KubeObject) =>
    canonicalOrder(recorder.recordUpdate(previous, next, CONFIG_PRODUCER_MANAGER, ''), shapeOf(String(next.kind)));
  let bootstrapped = false;
  let shuttingDown = false;
  subscriptions.push(
    startBootstrapEnsurer(
      { priorityLevels: plcStore, flowSchemas: fsStore, clock, newUid: randomUUID, apiDomain, finishWrite: producerWrite },
      ({ report, error }) => {
        if (error !== undefined) {
          logger.warning(`ensuring the APF bootstrap configuration failed, retrying: ${error instanceof Error ? error.message : String(error)}`);
          return;
        }
        if (!bootstrapped) logger.info('APF bootstrap configuration ensured');
        bootstrapped = true;
        for (const name of report?.created ?? []) logger.info(`created APF bootstrap object ${name}`);
        for (const name of report?.updated ?? []) logger.info(`updated APF bootstrap object ${name}`);
        for (const name of report?.deleted ?? []) logger.info(`deleted APF bootstrap object ${name}`);
      },
    ),
  );

  const nowMs = () => clock.now();
  const plane = options.executionPlane ?? startExecutionPlane(0);
  plane.registerMetrics(metrics.registry);
  const executor = plane.executor;
  let executorStarted = false;
  void plane.ready.then(() => (executorStarted = true));
  const encodingBudget = new EncodingBudget(options.encodingCacheBytes ?? DEFAULT_ENCODING_CACHE_BYTES);
  const keptYaml = yamlItems(encodingBudget);
  const keptProtobuf = protobufItems(encodingBudget);
  const agedTableRow = agedTableRows(encodingBudget);
  new Gauge({
    name: 'fairway_encoding_cache_bytes',
    help: "Bytes held by stored objects' kept encodings besides JSON (YAML list items, protobuf messages, Table rows), against --encoding-cache-bytes.",
    registers: [metrics.registry],
    collect() {
      this.set(encodingBudget.usedBytes);
    },
  });
  const out = (kind: FlowcontrolKind, listKind: string) => ({
    kind,
    listKind,
    apiVersion,
    metaGroup: groups.meta,
    nowMs,
    executor,
    apiDomain,
    yamlItems: keptYaml,
    protobufItems: keptProtobuf,
    tableRows: tableRows(encodingBudget, kind, apiDomain),
    agedTableRow,
  });
  const registryDeps = {
    apiVersion,
    group: groups.flowcontrol,
    newUid: randomUUID,
    randomInt,
    nowMs,
    managedFields: recorder,
    applyPatch: executorPatchApplier(executor, groups.flowcontrol),
    ...(access.admission !== undefined ? { admission: access.admission } : {}),
  };
  const registries: readonly ObjectRegistry[] = [
    new KindRegistry({ ...registryDeps, store: plcStore, kind: PRIORITY_LEVEL }),
    new KindRegistry({ ...registryDeps, store: fsStore, kind: FLOW_SCHEMA }),
  ];
  const decodeYaml = executorYamlDecoder(executor);
  const routes = new Map<string, ResourceRoute>(registries.map((registry) => [registry.resource, { registry, out: out(registry.kind, registry.listKind) }]));
  const resources = createResourceHandler({
    routes,
    group: groups.flowcontrol,
    version: FLOWCONTROL_VERSION,
    metaGroup: groups.meta,
    apiDomain,
    decodeYaml,
    minRequestTimeoutMs: options.minRequestTimeoutMs,
    watchLimiter: new WatchLimiter(options.maxWatchesPerUser ?? DEFAULT_MAX_WATCHES_PER_USER),
    onWatchTerminated: (group, resource) => terminatedWatchers.inc({ group, resource }),
    logger,
  });

  const ping: HealthCheck = { name: 'ping', check: () => undefined };
  // Not in /livez: after a failed write the store takes writes again by itself once the disk does.
  const storage: HealthCheck = {
    name: 'etcd',
    check: () =>
      store.state !== 'open'
        ? `storage is ${store.state}`
        : store.writeOutage !== undefined
          ? `storage refuses writes: ${store.writeOutage.message}`
          : undefined,
  };
  const bootstrap: HealthCheck = {
    name: 'poststarthook/priority-and-fairness-config-producer',
    check: () => (bootstrapped ? undefined : 'the APF bootstrap configuration is not ensured yet'),
  };
  const shutdown: HealthCheck = { name: 'shutdown', check: () => (shuttingDown ? 'the server is shutting down' : undefined) };
  const executionPlane: HealthCheck = { name: 'execution-plane', check: () => (executorStarted ? undefined : "the execution plane's threads are starting") };

  const filters: Filter[] = [access.authenticationFilter, access.impersonationFilter];
  if (options.enablePriorityAndFairness) {
    filters.push(
      createPriorityAndFairnessFilter({ controller, enforce: options.apfEnforce, clock, watchTracker: watches, observer: metrics.apfFilterObserver }),
    );
  }
  filters.push(
    createRequestMetricsFilter(metrics.requests, clock),
    ...(access.authorizationFilter !== undefined ? [access.authorizationFilter] : []),
    ...(options.extraFilters ?? []),
  );

  const registry = Registry.merge([metrics.registry, access.registry]);
  const extraRoutes = new Map<string, RouteHandler>([['/metrics', metricsHandler(registry)]]);
  if (options.enablePriorityAndFairness) for (const [path, handler] of createApfDebugHandlers(controller).byPath) extraRoutes.set(path, handler);
  const health = {
    healthz: [ping, storage, ...(options.extraHealthChecks ?? [])],
    livez: [ping, ...(options.extraHealthChecks ?? [])],
    readyz: [ping, storage, bootstrap, executionPlane, shutdown, ...(options.extraHealthChecks ?? [])],
  };
  servedLabels.addPaths([
    ...extraRoutes.keys(),
    ...Object.entries(health).flatMap(([endpoint, checks]) => [`/${endpoint}`, ...checks.map((c) => `/${endpoint}/${c.name}`)]),
    ...describedPaths(discoveryModel),
  ]);
  const apiServer = createApiServer({
    clock,
    logger,
    requestTimeoutMs: options.requestTimeoutMs,
    filters,
    health,
    resources: access.reviews.length > 0 ? withReviewRoutes(resources, access.reviews, decodeYaml) : resources,
    describe: createDescriptionHandler({
      model: discoveryModel,
      apiDomain,
      serverAddress: options.serverAddress,
    }),
    extraRoutes,
    onDone: createAccessLog({ logger, verbosity: options.verbosity ?? 0, clock }),
  });

  return {
    apiServer,
    controller,
    beginShutdown() {
      shuttingDown = true;
    },
    stop() {
      for (const s of subscriptions.splice(0)) s.unsubscribe();
      stopCounting();
      controller.stop();
      metrics.stop();
    },
  };
}
