// API Priority and Fairness wired to the rest of the server: the flow controller with the server's
// ServerCL, the stored-object counts it polls from the store and the estimator's settings, and the
// loops on the store that follow the configuration (digests and Dangling status only with APF
// enabled, as in kube-apiserver; the bootstrap ensurer and the garbage collector either way).
import { randomUUID } from 'node:crypto';
import { retry, shareReplay, timer, type Subscription } from 'rxjs';
import type { Clock } from '../../engine/clock.ts';
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
import type { ManagedFieldsRecorder } from '../../engine/patch/patch-applier.ts';
import { canonicalOrder } from '../../engine/resources/canonical-order.ts';
import { shapeOf } from '../../engine/request/decode.ts';
import { FLOWCONTROL_KINDS, storeResourceInfo } from '../../engine/resources/kinds.ts';
import type { KubeObject } from '../../engine/resources/types.ts';
import { resourcePrefix } from '../../engine/store/store.ts';
import type { ResourceStore, Store } from '../../engine/store/store-types.ts';
import type { Logger } from '../log.ts';
import type { FairwayMetrics } from '../metrics/fairway-metrics.ts';

export interface ApfWiringOptions {
  store: Store;
  priorityLevels: ResourceStore;
  flowSchemas: ResourceStore;
  clock: Clock;
  logger: Logger;
  apiDomain?: string | undefined;
  metrics: FairwayMetrics;
  /** Writes the bootstrap ensurer's objects with the API's managedFields, as the configuration producer's are. */
  recorder: ManagedFieldsRecorder;
  requestTimeoutMs: number;
  serverConcurrencyLimit: number;
  enablePriorityAndFairness: boolean;
  /** The work estimator's tunables (--apf-work-estimator-config-file); Kubernetes' defaults when absent. */
  workEstimator?: WorkEstimatorConfig | undefined;
}

export interface ApfWiring {
  controller: FlowController;
  /** The watches open per resource, which the work estimator counts and APF's filter keeps. */
  watches: InterestedWatches;
  /** Whether the bootstrap configuration has been ensured once (readyz). */
  bootstrapped(): boolean;
  /** Stops the loops, the polling and the controller. */
  stop(): void;
}

export function startApfWiring(options: ApfWiringOptions): ApfWiring {
  const { store, clock, logger, metrics } = options;
  const plcStore = options.priorityLevels;
  const fsStore = options.flowSchemas;
  const watches = new InterestedWatches();
  const objectCounts = new ObjectCountTracker(clock);
  const stopCounting = pollObjectCounts(store, clock, objectCounts, options.apiDomain);
  const controller = new FlowController({
    clock,
    serverConcurrencyLimit: options.serverConcurrencyLimit,
    defaultWaitLimitMs: Math.min(options.requestTimeoutMs / 4, 60_000),
    apiDomain: options.apiDomain,
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
  const bootstrap = ensureBootstrap(options);
  subscriptions.push(bootstrap.subscription);
  return {
    controller,
    watches,
    bootstrapped: bootstrap.done,
    stop() {
      for (const s of subscriptions.splice(0)) s.unsubscribe();
      stopCounting();
      controller.stop();
    },
  };
}

/** The bootstrap ensurer, its writes finished as the configuration producer's are, its reports logged. */
function ensureBootstrap(options: ApfWiringOptions): { subscription: Subscription; done: () => boolean } {
  const { clock, logger, apiDomain, recorder } = options;
  const producerWrite = (previous: KubeObject | undefined, next: KubeObject) =>
    canonicalOrder(recorder.recordUpdate(previous, next, CONFIG_PRODUCER_MANAGER, ''), shapeOf(String(next.kind)));
  let bootstrapped = false;
  const subscription = startBootstrapEnsurer(
    { priorityLevels: options.priorityLevels, flowSchemas: options.flowSchemas, clock, newUid: randomUUID, apiDomain, finishWrite: producerWrite },
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
  );
  return { subscription, done: () => bootstrapped };
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
