// Everything `/metrics` serves, in one prom-client Registry, and the hooks that feed it.
//
// Wiring (the controller takes the observer at construction, the metrics read its state later):
//   const metrics = createFairwayMetrics(new ServedLabels(discoveryModel).addPaths(nonResourcePaths));
//   const controller = new FlowController({ ..., observer: metrics.flowControl.observer });
//   metrics.flowControl.attach(controller);
//   chain([authn, createPriorityAndFairnessFilter({ ..., observer: metrics.apfFilterObserver }),
//          createRequestMetricsFilter(metrics.requests, clock), authz, ...], handler)
//   GET /metrics → metricsHandler(metrics.registry)

import { Registry } from 'prom-client';
import type { PriorityAndFairnessFilterObserver } from '../filters/priority-and-fairness.ts';
import { registerEventLoopMetrics } from './event-loop-metrics.ts';
import { registerGcMetrics } from './gc-metrics.ts';
import { FlowControlMetrics, type FlowControlMetricsOptions } from './flowcontrol-metrics.ts';
import { RequestMetrics } from './request-metrics.ts';
import { ServedLabels } from './served-labels.ts';
import { fairwayDiscoveryModel } from '../discovery/discovery.ts';

export interface FairwayMetrics {
  registry: Registry;
  flowControl: FlowControlMetrics;
  requests: RequestMetrics;
  apfFilterObserver: PriorityAndFairnessFilterObserver;
  /** Stops what samples in the background (the event-loop delay monitor, the GC observer). */
  stop(): void;
}

/**
 * `served`: what request labels may say (default: the default server's resources, no extra paths).
 * `now` (milliseconds) is the flow controller's clock: the timing-ratio histograms measure in it;
 * `showHidden` adds the flow-control metrics that component-base hides in 1.32.
 */
export function createFairwayMetrics(
  served: ServedLabels = new ServedLabels(fairwayDiscoveryModel()),
  options: FlowControlMetricsOptions = {},
): FairwayMetrics {
  const registry = new Registry();
  const flowControl = new FlowControlMetrics(options);
  const requests = new RequestMetrics(served);
  for (const family of [...requests.families, ...flowControl.families]) family.registerIn(registry);
  const eventLoop = registerEventLoopMetrics(registry);
  const gc = registerGcMetrics(registry);
  return {
    registry,
    flowControl,
    requests,
    apfFilterObserver: {
      rejected: (context) => requests.recordDropped(context),
      unenforcedRejection: (_context, outcome) => flowControl.countUnenforcedRejection(outcome),
    },
    stop: () => {
      eventLoop.stop();
      gc.stop();
    },
  };
}
