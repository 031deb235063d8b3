// The whole server minus the socket: over an open store it starts the flow controller (following
// the stored PLCs and FlowSchemas), the bootstrap ensurer, metrics, and builds the request path
// (filters and handlers). `fairway serve` puts it behind HTTPS; tests may put it behind plain
// HTTP in-process. `stop()` undoes everything but the store, which the caller owns. The parts are
// built beside it: APF (apf-wiring.ts), the resources' routes (resource-routes.ts), the health
// checks (health-checks.ts) and the request path (request-path.ts).
import { Counter, Registry } from 'prom-client';
import { realClock, formatRfc3339, type Clock } from '../../engine/clock.ts';
import type { FlowController } from '../../engine/flowcontrol/controller.ts';
import type { WorkEstimatorConfig } from '../../engine/flowcontrol/work-estimator-config.ts';
import { managedFieldsRecorder } from '../../engine/patch/patch-applier.ts';
import { flowcontrolApiVersion } from '../../engine/resources/api-domain.ts';
import { FLOWCONTROL_KINDS, storeResourceInfo } from '../../engine/resources/kinds.ts';
import type { Store } from '../../engine/store/store-types.ts';
import { fairwayDiscoveryModel } from '../discovery/discovery.ts';
import type { Filter } from '../request/http-context.ts';
import type { Logger } from '../log.ts';
import { createApiServer, type ApiServer } from './request-path.ts';
import type { RouteHandler } from './routing.ts';
import { createAccessLog } from './access-log.ts';
import { startApfWiring, type ApfWiring } from './apf-wiring.ts';
import { healthChecks } from './health-checks.ts';
import { createResourceRoutes } from './resource-routes.ts';
import { createPriorityAndFairnessFilter } from '../filters/priority-and-fairness.ts';
import { createFairwayMetrics, type FairwayMetrics } from '../metrics/fairway-metrics.ts';
import { metricsHandler } from '../metrics/metrics-handler.ts';
import { cacheListFamilies } from '../metrics/cache-lists.ts';
import { storageObjectsFamily } from '../metrics/storage-objects.ts';
import { createApfDebugHandlers } from '../debug/apf-dump.ts';
import { createRequestMetricsFilter } from '../metrics/request-metrics.ts';
import { createDescriptionHandler, describedPaths } from '../handlers/discovery.ts';
import { ServedLabels } from '../metrics/served-labels.ts';
import type { HealthCheck } from '../handlers/health.ts';
import type { AccessControl } from '../security/access-control.ts';
import { startExecutionPlane, type ExecutionPlane } from './execution-plane.ts';

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
  /** Where CPU-heavy stages of admitted requests run (api/assembly/execution-plane.ts); default: inline on the main thread. The caller closes it. */
  executionPlane?: ExecutionPlane;
  /** --encoding-cache-bytes: what the kept YAML items of stored objects may hold (api/handlers/encoded-items.ts). */
  encodingCacheBytes?: number | undefined;
  /** --v: 3 and above logs every request (api/assembly/access-log.ts). */
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

export function createFairwayServer(options: FairwayServerOptions): FairwayServer {
  const clock = options.clock ?? realClock();
  const { store, logger, apiDomain } = options;
  const priorityLevels = store.for(storeResourceInfo(FLOWCONTROL_KINDS[0], apiDomain));
  const flowSchemas = store.for(storeResourceInfo(FLOWCONTROL_KINDS[1], apiDomain));

  const access = options.accessControl;
  const discoveryModel = fairwayDiscoveryModel(apiDomain, { selfReviews: access.reviews.length > 0 });
  const servedLabels = new ServedLabels(discoveryModel);
  const metrics = createFairwayMetrics(servedLabels, { now: () => clock.now(), showHidden: options.showHiddenMetrics === true });
  storageObjectsFamily(store).registerIn(metrics.registry);
  for (const family of cacheListFamilies(store)) family.registerIn(metrics.registry);
  // kube-apiserver's cacher metric: watches closed because their client stopped reading.
  const terminatedWatchers = new Counter({
    name: 'apiserver_terminated_watchers_total',
    help: 'Counter of watchers closed due to unresponsiveness broken by resource type.',
    labelNames: ['group', 'resource'],
    registers: [metrics.registry],
  });
  const recorder = managedFieldsRecorder(flowcontrolApiVersion(apiDomain), () => formatRfc3339(clock.now()));
  const apf = startApfWiring({ ...options, store, priorityLevels, flowSchemas, clock, logger, apiDomain, metrics, recorder });
  let shuttingDown = false;

  const plane = options.executionPlane ?? startExecutionPlane(0);
  plane.registerMetrics(metrics.registry);
  let executorStarted = false;
  void plane.ready.then(() => (executorStarted = true));
  const resources = createResourceRoutes({
    ...options,
    priorityLevels,
    flowSchemas,
    nowMs: () => clock.now(),
    executor: plane.executor,
    recorder,
    access,
    registry: metrics.registry,
    terminatedWatchers,
  });
  const health = healthChecks(
    store,
    { bootstrapped: apf.bootstrapped, executorStarted: () => executorStarted, shuttingDown: () => shuttingDown },
    options.extraHealthChecks ?? [],
  );

  const registry = Registry.merge([metrics.registry, access.registry]);
  const extraRoutes = new Map<string, RouteHandler>([['/metrics', metricsHandler(registry)]]);
  if (options.enablePriorityAndFairness) for (const [path, handler] of createApfDebugHandlers(apf.controller).byPath) extraRoutes.set(path, handler);
  servedLabels.addPaths([
    ...extraRoutes.keys(),
    ...Object.entries(health).flatMap(([endpoint, checks]: [string, readonly HealthCheck[]]) => [
      `/${endpoint}`,
      ...checks.map((c) => `/${endpoint}/${c.name}`),
    ]),
    ...describedPaths(discoveryModel),
  ]);
  const apiServer = createApiServer({
    clock,
    logger,
    requestTimeoutMs: options.requestTimeoutMs,
    filters: filterChain(options, clock, apf, metrics),
    health,
    resources,
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
    controller: apf.controller,
    beginShutdown() {
      shuttingDown = true;
    },
    stop() {
      apf.stop();
      metrics.stop();
    },
  };
}

/** The filters in kube-apiserver's order: authentication, impersonation, priority and fairness (when enabled), request metrics, authorization. */
function filterChain(options: FairwayServerOptions, clock: Clock, apf: ApfWiring, metrics: FairwayMetrics): Filter[] {
  const access = options.accessControl;
  const filters: Filter[] = [access.authenticationFilter, access.impersonationFilter];
  if (options.enablePriorityAndFairness) {
    filters.push(
      createPriorityAndFairnessFilter({
        controller: apf.controller,
        enforce: options.apfEnforce,
        clock,
        watchTracker: apf.watches,
        observer: metrics.apfFilterObserver,
      }),
    );
  }
  filters.push(
    createRequestMetricsFilter(metrics.requests, clock),
    ...(access.authorizationFilter !== undefined ? [access.authorizationFilter] : []),
    ...(options.extraFilters ?? []),
  );
  return filters;
}
